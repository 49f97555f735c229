import type { NextFunction, Request, Response } from "express";
import type { components } from "../../gen/openapi/types.js";
import { pageSecurityHeaders } from "../pages/security-headers.js";
import { tooManyRequestsPage } from "../pages/too-many-requests-page.js";
import type { Decision, RateLimiter } from "../ratelimit/limiter.js";

type RateLimitError = components["schemas"]["RateLimitError"];

export interface RateLimitOptions {
  /** `RATE_LIMIT_HEADERS`: X-RateLimit-* on every response. */
  headers: boolean;
  /** The public base URL, for the links of the HTML refusal. */
  baseUrl: string;
}

/**
 * Meters every request by its class (docs/design.md "Rate limiting"): API requests are charged to
 * `req.principal`'s tier, the pages people reload to a page budget of their own, the exempt paths
 * to nothing. Every response gets the X-RateLimit-* headers of what applied unless `headers` is
 * off; a refusal is the limiter's 429. Mounted after `authenticate` and before the body is read,
 * so a refused request costs little.
 */
export function rateLimit(limiter: RateLimiter, options: RateLimitOptions) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const request = { method: req.method, path: req.path, fetchSite: req.get("sec-fetch-site") };
    const decision = await limiter.meter(req.principal, request, options.headers);
    if (!decision) return next();
    if (!decision.allowed) return sendRateLimited(req, res, decision, options);
    if (options.headers) res.set(rateLimitHeaders(decision));
    next();
  };
}

/**
 * Answers 429 with the limiter's body and headers (also for a key guesser, see `authenticate`);
 * a request that prefers HTML (a browser loading a page) gets the same status as a page.
 */
export function sendRateLimited(
  req: Request,
  res: Response,
  decision: Decision,
  options: RateLimitOptions,
): void {
  if (options.headers) res.set(rateLimitHeaders(decision));
  // Sent even with the other headers off: a client told 429 must learn when to come back.
  res.setHeader("Retry-After", String(decision.resetSeconds));
  res.status(429);
  if (req.accepts(["application/json", "text/html"]) === "text/html") {
    const page = tooManyRequestsPage(options.baseUrl, decision.resetSeconds);
    res.set(pageSecurityHeaders(options.baseUrl)).type("html").send(page);
    return;
  }
  res.json(rateLimitRefusal(decision));
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
