import type { NextFunction, Request, Response } from "express";
import type { Principal } from "../auth/principal.js";
import type { AppContext } from "../context.js";
import { RateLimitedError } from "../ratelimit/rate-limited.js";
import { sendRateLimited } from "./rate-limit.js";

declare module "express-serve-static-core" {
  interface Request {
    /** Who is calling: set by `authenticate` before any route, rate limiter or handler runs. */
    principal: Principal;
  }
}

/**
 * Resolves `req.principal` from the key headers or the client address. A presented key that is not
 * valid answers 401 `invalid_api_key` here, on every path, before any body is read; once such
 * refusals have emptied the anonymous bucket of the caller's address, 429 instead.
 */
export function authenticate(ctx: AppContext) {
  const headers = { headers: ctx.config.RATE_LIMIT_HEADERS };
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    try {
      req.principal = await ctx.auth.resolvePrincipal({
        authorization: req.get("authorization"),
        apiKey: req.get("x-api-key"),
        forwardedFor: req.get("x-forwarded-for"),
        realIp: req.get("x-real-ip"),
        peerAddress: req.socket.remoteAddress,
      });
      next();
    } catch (err) {
      if (err instanceof RateLimitedError) sendRateLimited(res, err.decision, headers);
      else next(err);
    }
  };
}

/** The challenge every 401 carries (RFC 9110 section 11.6.1; `error` per RFC 6750 section 3.1). */
export function bearerChallenge(reason: string | undefined): string {
  return reason === "invalid_api_key"
    ? 'Bearer realm="stampd", error="invalid_token"'
    : 'Bearer realm="stampd"';
}
