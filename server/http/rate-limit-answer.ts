import type { ServerResponse } from "node:http";
import type { components } from "../../gen/openapi/types.js";
import type { Decision } from "../ratelimit/limiter.js";
import { refusalMessage } from "../ratelimit/rate-limited.js";

type RateLimitError = components["schemas"]["RateLimitError"];

/**
 * The X-RateLimit-* headers (specs/openapi.yaml, components.headers), sent on every REST response
 * and on the WebSocket upgrade's 101 and 429 unless RATE_LIMIT_HEADERS is off.
 */
export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.resetSeconds),
    "X-RateLimit-Tier": d.tier,
  };
}

/**
 * Sets the X-RateLimit-* headers of `rateLimitHeaders` on a response directly: on every REST
 * response, the object and express's `res.set` loop over it were a measurable part of the limiter's
 * cost (bench/ratelimit.bench.ts).
 */
export function setRateLimitHeaders(res: ServerResponse, d: Decision): void {
  res.setHeader("X-RateLimit-Limit", String(d.limit));
  res.setHeader("X-RateLimit-Remaining", String(d.remaining));
  res.setHeader("X-RateLimit-Reset", String(d.resetSeconds));
  res.setHeader("X-RateLimit-Tier", d.tier);
}

/**
 * The headers of a 429: Retry-After always (a client told 429 must learn when to come back, even
 * with the other headers off), the X-RateLimit-* ones when `withLimitHeaders`.
 */
export function refusalHeaders(d: Decision, withLimitHeaders: boolean): Record<string, string> {
  return { ...(withLimitHeaders ? rateLimitHeaders(d) : {}), "Retry-After": String(d.resetSeconds) };
}

/** The 429 body (specs/openapi.yaml `RateLimitError`) of every HTTP refusal: REST and the WebSocket upgrade. */
export function rateLimitRefusal(d: Decision): RateLimitError {
  return {
    error: "rate_limit_exceeded",
    message: refusalMessage(d),
    retry_after: d.retryAfter,
    tier: d.tier,
    limit: d.limit,
  };
}
