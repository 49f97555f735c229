import type { NextFunction, Request, RequestHandler, Response } from "express";
import { routes } from "../../../gen/rest/routes.js";
import { missingApiKey } from "../../auth/auth-errors.js";
import { loadSpec, type Method } from "../../contract/openapi.js";
import { matchRequest, type RequestMatch } from "../operation-matcher.js";

type Security = Record<string, string[]>[];

interface SpecDocument {
  security?: Security;
  paths: Record<string, Partial<Record<Method, { security?: Security }>>>;
}

declare module "express-serve-static-core" {
  interface Request {
    /** The request's walk of the route table, made once here and read again by the request check. */
    match?: RequestMatch;
  }
}

/**
 * Answers 401 `missing_api_key` to anonymous callers of operations whose spec `security` has no
 * empty `{}` alternative. Derived from specs/openapi.yaml, so the spec alone decides which
 * operations need a key. The operation is the one an express router of the spec's operations
 * would have run (operation-matcher.ts), so `GET /vault/fees` is not taken for `GET /vault/{id}`.
 * The match is kept in `req.match` for the request check (request-validation.ts): the route table
 * is walked once per request.
 */
export function requireKey(): RequestHandler {
  const spec = loadSpec() as unknown as SpecDocument;
  const keyed = new Set(
    routes.filter((route) =>
      keyRequired(spec.paths[route.path]?.[route.method as Method]?.security ?? spec.security ?? []),
    ),
  );
  return function requireKeyOf(req: Request, _res: Response, next: NextFunction): void {
    const match = matchRequest(req.method, req.path);
    req.match = match;
    if (match.undecodable) {
      next(match.undecodable);
      return;
    }
    const route = match.routed?.route;
    next(route && keyed.has(route) && !req.principal.keyId ? missingApiKey() : undefined);
  };
}

/** A key is required unless an alternative requires nothing (an empty requirement object). */
function keyRequired(security: Security): boolean {
  return security.length > 0 && !security.some((alternative) => Object.keys(alternative).length === 0);
}
