import { Code, ConnectError } from "@connectrpc/connect";
import type { ErrorCode } from "../errors.js";
import { ServiceError } from "../errors.js";
import type { Logger } from "../logger.js";
import type { Decision } from "../ratelimit/limiter.js";
import { RateLimitedError, refusalMessage } from "../ratelimit/rate-limited.js";

/** The gRPC status of each domain error category (documented in stamp.proto). */
export const grpcCode: Record<ErrorCode, Code> = {
  invalid_argument: Code.InvalidArgument,
  unauthenticated: Code.Unauthenticated,
  permission_denied: Code.PermissionDenied,
  not_found: Code.NotFound,
  conflict: Code.FailedPrecondition,
  payload_too_large: Code.InvalidArgument,
  unprocessable: Code.InvalidArgument,
  rate_limited: Code.ResourceExhausted,
  not_implemented: Code.Unimplemented,
  unavailable: Code.Unavailable,
  internal: Code.Internal,
};

/** Maps anything thrown by a handler to a ConnectError; unknown failures stay in the log. */
export function toConnectError(err: unknown, logger: Logger): ConnectError {
  if (err instanceof ConnectError) return err;
  if (err instanceof RateLimitedError) return rateLimited(err.decision);
  if (err instanceof ServiceError) return fromServiceError(err);
  logger.error({ err }, "unhandled gRPC error");
  return new ConnectError("internal error", Code.Internal);
}

/**
 * A domain error's status; an `unavailable` one carries its wait as a pushback, as a 429 does, and
 * so does any other that knows when to come back (a pending stamp's Sigstore bundle).
 */
function fromServiceError(err: ServiceError): ConnectError {
  const wait = err.code === "unavailable" ? (err.retryAfter ?? 1) : err.retryAfter;
  const pushback = wait === undefined ? undefined : waitMetadata(wait);
  return new ConnectError(err.message, grpcCode[err.code], pushback);
}

/**
 * A wait of `seconds` as `grpc-retry-pushback-ms`, the trailer gRPC clients with a retry policy
 * honour (gRPC proposal A6), and as `retry-after` in whole seconds, the header an HTTP client reads
 * on a Connect call's 429 or 503 (Connect sends an error's metadata as response headers).
 */
function waitMetadata(seconds: number): Record<string, string> {
  return {
    "grpc-retry-pushback-ms": String(Math.ceil(seconds * 1000)),
    "retry-after": String(Math.ceil(seconds)),
  };
}

/**
 * RESOURCE_EXHAUSTED with the wait in the message and in its metadata (`waitMetadata`), the
 * counterpart of REST's Retry-After. `message` is the request budget's refusal unless given (the
 * bulk items budget words its own).
 */
export function rateLimited(d: Decision, message = refusalMessage(d)): ConnectError {
  return new ConnectError(message, Code.ResourceExhausted, waitMetadata(d.retryAfter));
}
