import type { NextFunction, Request, Response } from "express";
import type { Principal } from "../../auth/principal.js";
import { publicBaseUrl } from "../../config.js";
import type { AppContext } from "../../context.js";
import { ServiceError } from "../../errors.js";
import { callerOf } from "../../http/caller.js";
import { rateLimitHeaders } from "../../http/rate-limit-answer.js";
import { RateLimitedError } from "../../ratelimit/rate-limited.js";
import { sendRateLimited } from "./rate-limit.js";

declare module "express-serve-static-core" {
  interface Request {
    /** Who is calling: set by `authenticate` before any route, rate limiter or handler runs. */
    principal: Principal;
  }
}

/**
 * Resolves `req.principal` from the key headers or the client address. A presented key that is not
 * valid answers 401 `invalid_api_key` here, on every path, before any body is read, with the
 * figures of the address's anonymous bucket it was charged to; once such refusals have emptied
 * that bucket, 429 instead.
 */
export function authenticate(ctx: AppContext) {
  const options = { headers: ctx.config.RATE_LIMIT_HEADERS, baseUrl: publicBaseUrl(ctx.config) };
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const caller = callerOf(req);
    try {
      req.principal = await ctx.auth.resolvePrincipal(caller);
      next();
    } catch (err) {
      if (err instanceof RateLimitedError) return sendRateLimited(req, res, err.decision, options);
      if (err instanceof ServiceError && options.headers && ctx.rateLimiter) {
        const decision = await ctx.rateLimiter.peek(ctx.auth.addressPrincipal(caller));
        if (decision) res.set(rateLimitHeaders(decision));
      }
      next(err);
    }
  };
}
