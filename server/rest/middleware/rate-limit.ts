import type { NextFunction, Request, Response } from "express";
import { rateLimitHeaders, rateLimitRefusal, refusalHeaders } from "../../http/rate-limit-answer.js";
import { pageSecurityHeaders } from "../../pages/security-headers.js";
import { tooManyRequestsPage } from "../../pages/too-many-requests-page.js";
import type { Decision, RateLimiter } from "../../ratelimit/limiter.js";

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
  res.set(refusalHeaders(decision, options.headers)).status(429);
  if (req.accepts(["application/json", "text/html"]) === "text/html") {
    const page = tooManyRequestsPage(options.baseUrl, decision.resetSeconds);
    res.set(pageSecurityHeaders(options.baseUrl)).type("html").send(page);
    return;
  }
  res.json(rateLimitRefusal(decision));
}
