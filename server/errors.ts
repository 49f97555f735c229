import type { components } from "../gen/openapi/types.js";

/**
 * The category of a failure. Each transport maps it to its own status (REST status, gRPC code,
 * WebSocket error code), so the domain never knows which transport called it.
 */
export type ErrorCode =
  | "invalid_argument"
  | "unauthenticated"
  | "permission_denied"
  | "not_found"
  | "conflict"
  | "payload_too_large"
  | "unprocessable"
  | "rate_limited"
  | "not_implemented"
  | "unavailable"
  | "internal";

/** The stable machine-readable reason the spec lists (REST `Error.code`). */
export type ErrorReason = components["schemas"]["ErrorCode"];

export interface FieldError {
  path: string;
  message: string;
}

/** The one error type domain code throws. */
export class ServiceError extends Error {
  override readonly name = "ServiceError";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly reason?: ErrorReason,
    readonly fieldErrors?: FieldError[],
    /** Whole seconds a client should wait before retrying (`unavailable`, `rate_limited`). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

export const invalid = (message: string, fieldErrors?: FieldError[]) =>
  new ServiceError(
    "invalid_argument",
    message,
    fieldErrors ? "validation_failed" : "bad_request",
    fieldErrors,
  );
export const notFound = (message: string, reason?: ErrorReason) =>
  new ServiceError("not_found", message, reason);
export const conflict = (message: string, reason: ErrorReason) =>
  new ServiceError("conflict", message, reason);

/**
 * A dependency the request needs does not answer now; every transport answers it as retryable
 * (REST 503 with `Retry-After`, gRPC UNAVAILABLE with `grpc-retry-pushback-ms`, a WebSocket
 * `unavailable` error with `retryAfter`).
 */
export const unavailable = (message: string, reason: ErrorReason, retryAfter: number) =>
  new ServiceError("unavailable", message, reason, undefined, retryAfter);
