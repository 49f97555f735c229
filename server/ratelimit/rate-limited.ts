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
 * body's `message`, the WebSocket `error` reply's, gRPC RESOURCE_EXHAUSTED's.
 */
export function refusalMessage(d: Decision): string {
  return `Rate limit exceeded for tier ${d.tier}. Retry after ${d.resetSeconds} seconds.`;
}

/**
 * The wording of a bulk items refusal (stamp.proto, Rate limiting: Bulk items): which budget, its
 * size, the wait, and that the wait is for the budget to cover all `count` items.
 */
export function itemsRefusalMessage(d: Decision, count: number): string {
  const until = count > 1 ? `, when the budget covers all ${count} items` : "";
  return `Item limit exceeded for tier ${d.tier} (${d.limit} items a minute). Retry after ${d.resetSeconds} seconds${until}.`;
}
