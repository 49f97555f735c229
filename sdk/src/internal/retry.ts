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
