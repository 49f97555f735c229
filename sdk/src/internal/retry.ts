import type { APIError } from "./errors.js";
import { APIUserAbortError } from "./errors.js";

/** Retries after the first attempt, unless the client or the request says otherwise. */
export const DEFAULT_MAX_RETRIES = 2;

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8000;
/** The longest `Retry-After` honoured as sent; a server asking for more waits this long. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Whether an error answer is worth another attempt: timeouts, rate limits and server errors may
 * pass on a retry. Two exceptions, from the contract: 501 means the deployment does not implement
 * the operation (no retry changes that), and a 409 whose `code` names a state conflict (a vault
 * not active, a receipt already used) is final; only `idempotency_key_in_use` (the first request
 * is still running) or a 409 without a code is retried.
 */
export function isRetryable(status: number, body: unknown): boolean {
  if (status === 408 || status === 429) return true;
  if (status === 409) {
    const code = typeof body === "object" && body !== null ? (body as { code?: unknown }).code : undefined;
    return code === undefined || code === "idempotency_key_in_use";
  }
  return status >= 500 && status !== 501;
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first). A `Retry-After` header
 * (delay-seconds or HTTP-date, RFC 9110 section 10.2.3) wins, capped at `MAX_RETRY_AFTER_MS`;
 * otherwise 0.5 s doubling up to 8 s, less up to 25 % jitter so clients do not retry in step.
 */
export function retryDelay(
  retry: number,
  headers: Headers | undefined,
  now: number = Date.now(),
  random: () => number = Math.random,
): number {
  const asked = parseRetryAfter(headers?.get("retry-after") ?? null, now);
  if (asked !== undefined) return Math.min(asked, MAX_RETRY_AFTER_MS);
  const backoff = Math.min(INITIAL_DELAY_MS * 2 ** retry, MAX_DELAY_MS);
  return backoff * (1 - random() * 0.25);
}

/** A `Retry-After` value in milliseconds from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The gRPC trailer of a wait (gRPC proposal A6), the counterpart of REST's `Retry-After`. */
const PUSHBACK = "grpc-retry-pushback-ms";

/**
 * Milliseconds to wait before retry number `retry` of a unary gRPC call that failed with `error`
 * (an SDK error made of its status, grpc/errors.ts), or undefined when no retry helps. A 429
 * (RESOURCE_EXHAUSTED) is retried only with a pushback: without one it is a limit no wait lifts (a
 * message too large, a batch over a whole charge). A 503 (UNAVAILABLE) waits its pushback, else
 * the backoff. A pushback that is not a whole number of milliseconds means "do not retry" (A6).
 */
export function grpcRetryDelay(retry: number, error: APIError, random: () => number = Math.random) {
  if (error.status !== 429 && error.status !== 503) return undefined;
  const pushback = error.headers?.get(PUSHBACK) ?? null;
  if (pushback === null)
    return error.status === 503 ? retryDelay(retry, undefined, Date.now(), random) : undefined;
  return /^\d+$/.test(pushback.trim()) ? Math.min(Number(pushback), MAX_RETRY_AFTER_MS) : undefined;
}

/** What `onRetry` is told before each wait between two attempts of a call. */
export interface RetryNotice {
  /** The answer that is retried (a `RateLimitError` for a rate limit, REST or gRPC). */
  error: APIError;
  /** Milliseconds the client waits before the next attempt. */
  delayMs: number;
  /** 0 before the first retry, 1 before the second, … */
  retry: number;
}

/** Called before each wait between two attempts: tell a person what is being waited out. */
export type RetryListener = (notice: RetryNotice) => void;

/** Resolves after `ms`, or rejects with `APIUserAbortError` when `signal` aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError());
    const onAbort = () => {
      clearTimeout(handle);
      reject(new APIUserAbortError());
    };
    const handle = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
