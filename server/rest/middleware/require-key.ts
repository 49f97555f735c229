import type { NextFunction, Request, RequestHandler, Response } from "express";
import { missingApiKey } from "../../auth/auth-errors.js";
import { listOperations, loadSpec, type Method, type Operation } from "../../contract/openapi.js";
import { operationMatcher } from "../operation-matcher.js";

type Security = Record<string, string[]>[];

interface SpecDocument {
  security?: Security;
  paths: Record<string, Partial<Record<Method, { security?: Security }>>>;
}

/**
 * Answers 401 `missing_api_key` to anonymous callers of operations whose spec `security` has no
 * empty `{}` alternative. Derived from specs/openapi.yaml, so the spec alone decides which
 * operations need a key. Operations are tried in listOperations() order (literal segments first)
 * and the first match decides, so `GET /vault/fees` is not taken for `GET /vault/{id}`.
 */
export function requireKey(spec = loadSpec() as unknown as SpecDocument): RequestHandler {
  const operations = listOperations(spec as never);
  const needsKey = new Set(
    operations.filter((op) => keyRequired(spec.paths[op.path]?.[op.method]?.security ?? spec.security ?? [])),
  );
  const match = operationMatcher(operations);
  return (req: Request, _res: Response, next: NextFunction): void => {
    let operation: Operation | undefined;
    try {
      operation = match(req.method, req.path)?.operation;
    } catch (err) {
      next(err);
      return;
    }
    next(operation && needsKey.has(operation) && !req.principal.keyId ? missingApiKey() : undefined);
  };
}

/** A key is required unless an alternative requires nothing (an empty requirement object). */
function keyRequired(security: Security): boolean {
  return security.length > 0 && !security.some((alternative) => Object.keys(alternative).length === 0);
}
