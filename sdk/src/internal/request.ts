import { APIConnectionError, APIError, APITimeoutError, APIUserAbortError } from "./errors.js";
import { isRetryable, type RetryListener, retryDelay, sleep } from "./retry.js";

/** Options every SDK method accepts as its last argument. */
export interface RequestOptions {
  /** Extra headers for this request (e.g. Prism's `Prefer: code=404`). */
  headers?: Record<string, string> | undefined;
  /** Aborts the request, including the waits between retries. */
  signal?: AbortSignal | undefined;
  /** Milliseconds one attempt may take, body included. */
  timeout?: number | undefined;
  /** Retries after the first attempt. */
  maxRetries?: number | undefined;
  /** The `Idempotency-Key` of a POST; by default one is generated per call. */
  idempotencyKey?: string | undefined;
}

/** What one attempt passes to openapi-fetch (a type, not an interface, to fit its init object). */
export type AttemptInit = {
  headers: Record<string, string>;
  signal: AbortSignal;
};

/** The shape of an openapi-fetch result. */
export interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

export interface RequesterSettings {
  timeout: number;
  maxRetries: number;
  onRetry?: RetryListener;
}

/**
 * Runs one SDK call: attempts, retries with backoff, timeout and abort, errors as classes.
 * Each attempt calls `attempt` anew, so the body is made again: a request body is a stream that
 * can be read only once, and cloning a Request would buffer a whole upload in memory, whereas a
 * Blob, a file-backed Blob or bytes are simply read again. A body that cannot be (an upload given
 * as a stream, once it started) says so through `replayable`, and its call is not retried.
 */
export async function request<R extends FetchResult>(
  settings: RequesterSettings,
  method: "GET" | "POST",
  attempt: (init: AttemptInit) => Promise<R>,
  options: RequestOptions = {},
  replayable: () => boolean = () => true,
): Promise<Exclude<R["data"], undefined>> {
  const headers = withIdempotencyKey(method, options);
  const maxRetries = options.maxRetries ?? settings.maxRetries;
  const timeout = options.timeout ?? settings.timeout;
  for (let retry = 0; ; retry++) {
    const canRetry = () => retry < maxRetries && replayable();
    let result: R;
    try {
      result = await attemptOnce(attempt, headers, timeout, options.signal);
    } catch (err) {
      if (!(err instanceof APIConnectionError) || !canRetry()) throw err;
      await wait(settings, err, retryDelay(retry, undefined), retry, options.signal);
      continue;
    }
    const { response } = result;
    if (response.ok) return result.data as Exclude<R["data"], undefined>;
    const error = APIError.generate(response.status, result.error, response.headers);
    if (!canRetry() || !isRetryable(response.status, result.error)) throw error;
    await wait(settings, error, retryDelay(retry, response.headers), retry, options.signal);
  }
}

/** Tells `onRetry` what is waited out, then waits. */
function wait(
  settings: RequesterSettings,
  error: APIError,
  delayMs: number,
  retry: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  settings.onRetry?.({ error, delayMs, retry });
  return sleep(delayMs, signal);
}

/** One key per POST call, reused by all its retries, so the server can replay instead of redo. */
function withIdempotencyKey(method: string, options: RequestOptions): Record<string, string> {
  const headers = { ...options.headers };
  if (method === "POST") {
    headers["Idempotency-Key"] =
      options.idempotencyKey ?? headers["Idempotency-Key"] ?? `stampd-sdk-${crypto.randomUUID()}`;
  }
  return headers;
}

async function attemptOnce<R>(
  attempt: (init: AttemptInit) => Promise<R>,
  headers: Record<string, string>,
  timeout: number,
  signal: AbortSignal | undefined,
): Promise<R> {
  if (signal?.aborted) throw new APIUserAbortError();
  const timer = new AbortController();
  const handle = setTimeout(() => timer.abort(), timeout);
  try {
    return await attempt({
      headers,
      signal: signal ? AbortSignal.any([signal, timer.signal]) : timer.signal,
    });
  } catch (err) {
    if (signal?.aborted) throw new APIUserAbortError();
    if (timer.signal.aborted) throw new APITimeoutError();
    // A success body that is not JSON came from a server, not from a broken connection.
    if (err instanceof APIError || err instanceof SyntaxError) throw err;
    throw new APIConnectionError(undefined, { cause: err });
  } finally {
    clearTimeout(handle);
  }
}
