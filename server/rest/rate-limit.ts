import type { NextFunction, Request, Response } from "express";
import type { components } from "../../gen/openapi/types.js";
import type { Decision, RateLimiter } from "../ratelimit/limiter.js";
import { isExempt } from "../ratelimit/paths.js";

type RateLimitError = components["schemas"]["RateLimitError"];

/**
 * Charges every request but the exempt paths to `req.principal`'s budget (seed part 8): adds the
 * X-RateLimit-* headers unless `headers` is off, and answers 429 with the limiter's own body.
 * Mounted after `authenticate` and before the body is read, so a refused request costs little.
 */
export function rateLimit(limiter: RateLimiter, options: { headers: boolean }) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (isExempt(req.path)) return next();
    const decision = await limiter.consume(req.principal, req.path);
    if (!decision) return next();
    if (decision.allowed) {
      if (options.headers) res.set(rateLimitHeaders(decision));
      return next();
    }
    sendRateLimited(res, decision, options);
  };
}

/** Answers 429 with the limiter's body and headers (also for a key guesser, see `authenticate`). */
export function sendRateLimited(res: Response, decision: Decision, options: { headers: boolean }): void {
  if (options.headers) res.set(rateLimitHeaders(decision));
  // Sent even with the other headers off: a client told 429 must learn when to come back.
  res.setHeader("Retry-After", String(decision.resetSeconds));
  res.status(429).json(rateLimitRefusal(decision));
}

/** The X-RateLimit-* headers of seed 8.4 (also sent on the WebSocket upgrade's 101 and 429). */
export function rateLimitHeaders(d: Decision): Record<string, string> {
  return {
    "X-RateLimit-Limit": String(d.limit),
    "X-RateLimit-Remaining": String(d.remaining),
    "X-RateLimit-Reset": String(d.resetSeconds),
    "X-RateLimit-Tier": d.tier,
  };
}

/** The 429 body of seed part 7, for every HTTP refusal (REST and the WebSocket upgrade). */
export function rateLimitRefusal(d: Decision): RateLimitError {
  return {
    error: "rate_limit_exceeded",
    message: `Rate limit exceeded for tier ${d.tier}. Retry after ${d.resetSeconds} seconds.`,
    retry_after: d.retryAfter,
    tier: d.tier,
    limit: d.limit,
  };
}
