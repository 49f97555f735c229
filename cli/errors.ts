import { ConnectError } from "@connectrpc/connect";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  type Schemas,
  StampWaitTimeoutError,
} from "../sdk/src/index.js";

type ValidationIssue = Schemas["ValidationIssue"];

/**
 * The command could not run as given (a bad option, a missing or unreadable file): exit 2, and
 * nothing was sent to the server.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

import { EXIT_FAILURE, EXIT_USAGE } from "./exit-codes.js";

export { EXIT_FAILURE, EXIT_USAGE };

export interface ErrorReport {
  line: string;
  exitCode: number;
}

/** One line for stderr, `stampd: <detail> (<code>, HTTP <status>)`, and the exit code of an error. */
export function reportError(err: unknown): ErrorReport {
  if (err instanceof UsageError) return { line: `stampd: ${err.message}`, exitCode: EXIT_USAGE };
  // `--wait` ran out of time: say which stamp and its status, not that a request timed out.
  if (err instanceof StampWaitTimeoutError) return failure(`${err.message} (timeout)`);
  if (err instanceof APITimeoutError) return failure("the request timed out (timeout)");
  if (err instanceof APIConnectionError) return failure(`${connectionDetail(err)} (connection_error)`);
  if (err instanceof APIError) {
    // The SDK maps a gRPC status to the class of its HTTP status and keeps the status as the cause.
    const via = err.cause instanceof ConnectError ? `gRPC ${err.cause.code}` : `HTTP ${err.status}`;
    return failure(`${apiDetail(err)} (${err.code ?? "error"}, ${via})`);
  }
  return failure((err as Error).message ?? String(err));
}

function failure(detail: string): ErrorReport {
  return { line: `stampd: ${detail}`, exitCode: EXIT_FAILURE };
}

/**
 * `detail` of the spec's Error body with its validation issues, or `message` of the rate
 * limiter's 429 with its wait.
 */
function apiDetail(err: APIError): string {
  const body = (typeof err.body === "object" && err.body !== null ? err.body : {}) as Record<string, unknown>;
  const text = body.detail ?? body.message;
  const detail = typeof text === "string" ? text : err.message;
  const issues = Array.isArray(body.errors) ? (body.errors as ValidationIssue[]) : [];
  if (issues.length) return `${detail}: ${issues.map((i) => `${i.path} ${i.message}`).join("; ")}`;
  const wait = body.retry_after;
  return typeof wait === "number" && !detail.includes("retry") ? `${detail}; retry after ${wait} s` : detail;
}

/** fetch wraps the reason (ECONNREFUSED, ENOTFOUND, …) in `cause.cause`: name it. */
function connectionDetail(err: APIConnectionError): string {
  let cause: unknown = err.cause;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  return cause instanceof Error ? `cannot reach the server: ${cause.message}` : "cannot reach the server";
}
