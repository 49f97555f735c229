import type { ErrorCode, ErrorData, ValidationIssue } from "../../gen/asyncapi/index.js";
import { ServiceError } from "../errors.js";

/** A request that gets an `error` reply; the connection stays open. */
export class WsErrorReply extends Error {
  override readonly name = "WsErrorReply";
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly errors?: ValidationIssue[],
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  toData(): ErrorData {
    return {
      code: this.code,
      message: this.message,
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.retryAfter !== undefined ? { retryAfter: this.retryAfter } : {}),
    };
  }
}

// How a domain failure reads on the WebSocket; categories without a WebSocket code are internal.
const codeOf: Partial<Record<ServiceError["code"], ErrorCode>> = {
  invalid_argument: "invalid_message",
  not_found: "not_found",
  unauthenticated: "unauthenticated",
  rate_limited: "rate_limited",
  unavailable: "unavailable",
};

/**
 * The `error` data for anything a request handler threw, or undefined when it is unexpected
 * (the caller logs it and answers `internal`, keeping internals out of the reply).
 */
export function toWsError(err: unknown): WsErrorReply | undefined {
  if (err instanceof WsErrorReply) return err;
  if (!(err instanceof ServiceError)) return undefined;
  const code = codeOf[err.code];
  if (!code) return undefined;
  const errors = err.fieldErrors?.map(({ path, message }) => ({ path, message }));
  return new WsErrorReply(code, err.message, errors, err.retryAfter);
}
