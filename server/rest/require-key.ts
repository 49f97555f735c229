import express, { type NextFunction, type Request, type Response, type Router } from "express";
import { missingApiKey } from "../auth/auth-errors.js";
import { listOperations, loadSpec, type Method } from "./spec.js";

type Security = Record<string, string[]>[];

interface SpecDocument {
  security?: Security;
  paths: Record<string, Partial<Record<Method, { security?: Security }>>>;
}

/**
 * Answers 401 `missing_api_key` to anonymous callers of operations whose spec `security` has no
 * empty `{}` alternative. Derived from specs/openapi.yaml, so the spec alone decides which
 * operations need a key. Routes are tried in listOperations() order (literal segments first) and
 * the first match decides, so `GET /vault/fees` is not taken for `GET /vault/{id}`.
 */
export function requireKey(spec = loadSpec() as unknown as SpecDocument): Router {
  const router = express.Router();
  for (const op of listOperations(spec as never)) {
    const security = spec.paths[op.path]?.[op.method]?.security ?? spec.security ?? [];
    const check = keyRequired(security) ? demandKey : allow;
    router[op.method](op.expressPath, check);
  }
  return router;
}

/** A key is required unless an alternative requires nothing (an empty requirement object). */
function keyRequired(security: Security): boolean {
  return security.length > 0 && !security.some((alternative) => Object.keys(alternative).length === 0);
}

// `next("router")` leaves this router, so later, less specific routes are not consulted.
function allow(_req: Request, _res: Response, next: NextFunction): void {
  next("router");
}

function demandKey(req: Request, _res: Response, next: NextFunction): void {
  next(req.principal.keyId ? "router" : missingApiKey());
}
