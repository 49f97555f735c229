import { ServiceError } from "../errors.js";
import type { Decision } from "./limiter.js";

/**
 * A request refused by the rate limiter outside the transports' own metering (a refused API key,
 * charged by `failedAuthCharge`). Each transport answers it as it answers any throttled request:
 * REST and the WebSocket upgrade 429 with the limiter's body, gRPC RESOURCE_EXHAUSTED with pushback.
 */
export class RateLimitedError extends ServiceError {
  constructor(readonly decision: Decision) {
    super("rate_limited", refusalMessage(decision));
  }
}

/**
 * The one wording of a rate-limit refusal, on every transport: the REST and WebSocket upgrade 429
 * body's `message`, the WebSocket `error` reply's, gRPC RESOURCE_EXHAUSTED's. `whole` names what a
 * charge of several calls at once waits for (a gRPC batch: "all 3 stamps"): its wait is for the
 * budget to cover all of them.
 */
export function refusalMessage(d: Decision, whole?: string): string {
  const until = whole ? `, when the budget covers ${whole}` : "";
  return `Rate limit exceeded for tier ${d.tier}. Retry after ${d.resetSeconds} seconds${until}.`;
}
