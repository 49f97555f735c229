import type { NextFunction, Request, Response } from "express";
import type { ErrorCode, ErrorReason, FieldError } from "../../errors.js";
import { ServiceError } from "../../errors.js";
import { bearerChallenge } from "../../http/caller.js";
import type { Logger } from "../../logger.js";

export const httpStatus: Record<ErrorCode, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unprocessable: 422,
  rate_limited: 429,
  not_implemented: 501,
  unavailable: 503,
  internal: 500,
};

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  message?: string;
  errors?: { path?: string; message?: string }[];
  type?: string;
  /** With 405: the methods the path takes (request-validation.ts). */
  allow?: string[];
}

/**
 * Turns anything thrown into the spec's error body `{detail, code?, errors?}`. Validator and body
 * parser errors keep their 4xx status; anything unexpected is a 500 whose internals stay in the log.
 */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (res.headersSent) {
      req.socket.destroy();
      return;
    }
    if (err instanceof ServiceError) {
      if (err.code === "unauthenticated") res.setHeader("WWW-Authenticate", bearerChallenge(err.reason));
      // A 503 always says when to come back; another refusal when it knows (a pending stamp's 409).
      if (err.code === "unavailable" || err.retryAfter !== undefined)
        res.setHeader("Retry-After", String(err.retryAfter ?? 1));
      res.status(httpStatus[err.code]).json(body(err.message, err.reason, err.fieldErrors));
      return;
    }
    const e = (err ?? {}) as HttpLikeError;
    const status = spokenStatus(e.status ?? e.statusCode);
    if (status && status >= 400 && status < 500) {
      if (status === 405 && e.allow) res.setHeader("Allow", e.allow.join(", "));
      res.status(status).json(clientError(e, status));
      return;
    }
    logger.error({ err, reqId: req.id }, "unhandled error");
    res.status(500).json(body("internal error"));
  };
}

/**
 * The status the spec gives an error: a body without a Content-Type the operation takes (the
 * validator's and body parser's 415) is malformed input, a 400 like any other (specs/openapi.yaml,
 * `BadRequest`), so clients meet only the statuses the spec lists.
 */
function spokenStatus(status: number | undefined): number | undefined {
  return status === 415 ? 400 : status;
}

/** Errors raised by the body parser and the OpenAPI validator, in the spec's shape. */
function clientError(e: HttpLikeError, status: number) {
  if (e.type === "entity.too.large") return body("request body too large", "payload_too_large");
  if (e.type === "entity.parse.failed") return body("malformed JSON body", "invalid_json");
  if (status === 404) return body("not found");
  if (status === 405) return body("method not allowed");
  if (status === 413) return body(e.message ?? "payload too large", "payload_too_large");
  const errors = fieldErrors(e);
  return body(
    errors ? "request validation failed" : (e.message ?? "bad request"),
    errors ? "validation_failed" : undefined,
    errors,
  );
}

function fieldErrors(e: HttpLikeError): FieldError[] | undefined {
  if (!Array.isArray(e.errors) || e.errors.length === 0) return undefined;
  return e.errors.map((x) => ({ path: x.path ?? "", message: x.message ?? "invalid" }));
}

function body(detail: string, code?: ErrorReason, errors?: FieldError[]) {
  return { detail, ...(code ? { code } : {}), ...(errors ? { errors } : {}) };
}
