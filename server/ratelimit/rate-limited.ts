import { ServiceError } from "../errors.js";
import type { Decision } from "./limiter.js";

/**
 * A request refused by the rate limiter outside the transports' own metering (a refused API key,
 * charged by `failedAuthCharge`). Each transport answers it as it answers any throttled request:
 * REST and the WebSocket upgrade 429 with the limiter's body, gRPC RESOURCE_EXHAUSTED with pushback.
 */
export class RateLimitedError extends ServiceError {
  constructor(readonly decision: Decision) {
    super(
      "rate_limited",
      `rate limit exceeded for tier ${decision.tier} (${decision.limit} requests/min); retry after ${decision.resetSeconds} s`,
    );
  }
}
