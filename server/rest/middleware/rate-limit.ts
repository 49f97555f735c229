import type { NextFunction, Request, Response } from "express";
import { rateLimitRefusal, refusalHeaders, setRateLimitHeaders } from "../../http/rate-limit-answer.js";
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
  // Applied at once when the limiter answers at once (memory, a Redis look): no promise, no closure.
  return (req: Request, res: Response, next: NextFunction): Promise<void> | undefined => {
    const fetchSite = req.headers["sec-fetch-site"] as string | undefined;
    const request = { method: req.method, path: req.path, fetchSite };
    const decision = limiter.meter(req.principal, request, options.headers);
    if (decision instanceof Promise) return decision.then((d) => apply(d, req, res, next, options));
    apply(decision, req, res, next, options);
    return undefined;
  };
}

function apply(
  decision: Decision | null,
  req: Request,
  res: Response,
  next: NextFunction,
  options: RateLimitOptions,
): void {
  if (decision && !decision.allowed) return void sendRateLimited(req, res, decision, options);
  if (decision && options.headers) setRateLimitHeaders(res, decision);
  next();
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
