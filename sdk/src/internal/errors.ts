import type { components } from "../../../gen/openapi/types.js";

/** The body of every stampd error response except the rate limiter's 429. */
export type ErrorBody = components["schemas"]["Error"];
/** The body of a 429 from the rate limiter. */
export type RateLimitBody = components["schemas"]["RateLimitError"];
type StampResponse = components["schemas"]["StampResponse"];

/** Base class of every error this SDK throws. */
export class StampdError extends Error {
  override name = "StampdError";
}

/**
 * An answer from the server that is not a success, or a request that got no answer (then `status`
 * is undefined). `body` is the parsed JSON body (or its text when it is not JSON).
 */
export class APIError<TBody = unknown> extends StampdError {
  override name = "APIError";
  readonly status: number | undefined;
  readonly body: TBody | undefined;
  readonly headers: Headers | undefined;
  /** The `X-Request-Id` of the response: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** The stable machine-readable `code` of the error body, when it has one. */
  readonly code: string | undefined;

  constructor(status: number | undefined, body: TBody | undefined, message: string, headers?: Headers) {
    super(message);
    this.status = status;
    this.body = body;
    this.headers = headers;
    this.requestId = headers?.get("x-request-id") ?? undefined;
    this.code = codeOf(body);
  }

  /** The error class for an HTTP status, as openai-node picks it. */
  static generate(status: number, body: unknown, headers: Headers): APIError {
    const message = `${status} ${detailOf(body) ?? "status code (no body)"}`;
    const Class = statusClasses[status] ?? (status >= 500 ? InternalServerError : APIError);
    return new Class(status, body as never, message, headers);
  }
}

export class BadRequestError extends APIError<ErrorBody> {
  override name = "BadRequestError";
}
export class AuthenticationError extends APIError<ErrorBody> {
  override name = "AuthenticationError";
}
export class PermissionDeniedError extends APIError<ErrorBody> {
  override name = "PermissionDeniedError";
}
export class NotFoundError extends APIError<ErrorBody | string> {
  override name = "NotFoundError";
}
export class ConflictError extends APIError<ErrorBody> {
  override name = "ConflictError";
}
export class PayloadTooLargeError extends APIError<ErrorBody> {
  override name = "PayloadTooLargeError";
}
export class UnprocessableEntityError extends APIError<ErrorBody> {
  override name = "UnprocessableEntityError";
}
export class InternalServerError extends APIError<ErrorBody> {
  override name = "InternalServerError";
}

/**
 * 429 (gRPC: RESOURCE_EXHAUSTED): wait `retryAfter` seconds; `tier` is the client's rate-limit
 * tier. Without `retryAfter` no wait helps (a gRPC batch larger than one charge may hold).
 */
export class RateLimitError extends APIError<RateLimitBody | ErrorBody> {
  override name = "RateLimitError";
  /** Seconds to wait: the body's `retry_after`, else `Retry-After`, else gRPC's pushback trailer. */
  readonly retryAfter: number | undefined;
  readonly tier: string | undefined;

  constructor(status: number | undefined, body: unknown, message: string, headers?: Headers) {
    super(status, body as RateLimitBody, message, headers);
    const limited = isObject(body) ? body : {};
    this.retryAfter = typeof limited.retry_after === "number" ? limited.retry_after : waitIn(headers);
    this.tier =
      typeof limited.tier === "string"
        ? limited.tier
        : (headers?.get("x-ratelimit-tier") ?? /\bfor tier (\w+)/.exec(message)?.[1]);
  }
}

/** Seconds of `Retry-After`, or of gRPC's `grpc-retry-pushback-ms`; undefined when neither is a number. */
function waitIn(headers: Headers | undefined): number | undefined {
  const seconds = Number(headers?.get("retry-after") ?? Number.NaN);
  if (!Number.isNaN(seconds)) return seconds;
  const ms = Number(headers?.get("grpc-retry-pushback-ms") ?? Number.NaN);
  return Number.isNaN(ms) ? undefined : ms / 1000;
}

/** The request got no answer: the connection failed (also the base of timeouts). */
export class APIConnectionError extends APIError<undefined> {
  override name = "APIConnectionError";
  constructor(message = "Connection error.", options?: { cause?: unknown }) {
    super(undefined, undefined, message);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/** The request did not complete within `timeout` milliseconds. */
export class APITimeoutError extends APIConnectionError {
  override name = "APITimeoutError";
  constructor(message = "Request timed out.") {
    super(message);
  }
}

/** The caller aborted the request through its `signal`. */
export class APIUserAbortError extends APIError<undefined> {
  override name = "APIUserAbortError";
  constructor(message = "Request was aborted.") {
    super(undefined, undefined, message);
  }
}

// `body: never` admits every subclass, whichever body type it declares.
type APIErrorClass = new (status: number, body: never, message: string, headers: Headers) => APIError;

const statusClasses: Record<number, APIErrorClass> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** `detail` of the spec's Error body, `message` of the rate limiter's, or a text body. */
function detailOf(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() ? body.slice(0, 200) : undefined;
  if (!isObject(body)) return undefined;
  const text = body.detail ?? body.message;
  return typeof text === "string" ? text : JSON.stringify(body);
}

function codeOf(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const code = body.code ?? body.error;
  return typeof code === "string" ? code : undefined;
}

/** `stamps.waitFor()` ran out of time; `stamp` is the stamp as last read, if it was read. */
export class StampWaitTimeoutError extends APITimeoutError {
  override name = "StampWaitTimeoutError";
  constructor(
    readonly stampId: string,
    readonly until: string,
    readonly stamp: StampResponse | undefined,
  ) {
    super(`${stampId} did not become ${until} in time (it is ${stamp?.status ?? "unknown"})`);
  }
}

/**
 * `stamps.waitFor()` was asked for a state the stamp can no longer reach: `anchored` for a stamp
 * that requested no anchor, or one of whose anchors failed or is unavailable on the deployment.
 */
export class StampUnreachableStateError extends StampdError {
  override name = "StampUnreachableStateError";
  constructor(
    readonly stamp: StampResponse,
    readonly until: string,
  ) {
    const anchors = stamp.anchors.map((a) => `${a.type} ${a.status}`).join(", ") || "none requested";
    super(`${stamp.stamp_id} will stay ${stamp.status}, never ${until} (anchors: ${anchors})`);
  }
}
