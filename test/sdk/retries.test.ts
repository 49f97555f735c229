import { describe, expect, it } from "vitest";
import { createClient, InternalServerError, RateLimitError } from "../../sdk/src/index.js";
import {
  isRetryable,
  MAX_RETRY_AFTER_MS,
  parseRetryAfter,
  retryDelay,
} from "../../sdk/src/internal/retry.js";
import { fakeFetch, json } from "./fake-fetch.js";

const health = { status: "ok", version: "0.1.0", timestamp: "2024-11-21T08:15:30.000Z" };
const limited = (retryAfter: string) =>
  json(
    429,
    { error: "rate_limit_exceeded", message: "slow down", retry_after: 1, tier: "anonymous", limit: 20 },
    { "retry-after": retryAfter },
  );
const client = (fetch: typeof globalThis.fetch, maxRetries?: number) =>
  createClient({ baseUrl: "http://stampd.test", fetch, maxRetries });

describe("retries", () => {
  it("retries a 429 and returns the answer that follows", async () => {
    const { fetch, seen } = fakeFetch(limited("0"), json(200, health));
    await expect(client(fetch).service.health()).resolves.toEqual(health);
    expect(seen).toHaveLength(2);
  });

  it("tells onRetry what it waits out before each retry (issue #36)", async () => {
    const { fetch } = fakeFetch(limited("0"), json(200, health));
    const notices: unknown[] = [];
    const stampd = createClient({
      baseUrl: "http://stampd.test",
      fetch,
      onRetry: ({ error, delayMs, retry }) => notices.push({ error, delayMs, retry }),
    });
    await stampd.service.health();
    expect(notices).toEqual([{ error: expect.any(RateLimitError), delayMs: 0, retry: 0 }]);
    expect((notices[0] as { error: RateLimitError }).error.tier).toBe("anonymous");
  });

  it("makes 1 + maxRetries attempts (default 2) and then throws the last error", async () => {
    const { fetch, seen } = fakeFetch(json(503, { detail: "down" }, { "retry-after": "0" }));
    await expect(client(fetch).service.health()).rejects.toBeInstanceOf(InternalServerError);
    expect(seen).toHaveLength(3);
  });

  it("honours maxRetries from the client and from the call", async () => {
    const first = fakeFetch(limited("0"));
    await expect(client(first.fetch, 0).service.health()).rejects.toBeInstanceOf(RateLimitError);
    expect(first.seen).toHaveLength(1);
    const second = fakeFetch(limited("0"));
    await expect(client(second.fetch, 0).service.health({ maxRetries: 4 })).rejects.toBeInstanceOf(
      RateLimitError,
    );
    expect(second.seen).toHaveLength(5);
  });

  it("retries a connection error", async () => {
    const { fetch, seen } = fakeFetch(new TypeError("fetch failed"), json(200, health));
    await expect(client(fetch).service.health({ timeout: 5000 })).resolves.toEqual(health);
    expect(seen).toHaveLength(2);
  });

  it("waits the Retry-After seconds before retrying", async () => {
    const { fetch, seen } = fakeFetch(limited("1"), json(200, health));
    await client(fetch).service.health();
    // The default backoff of a first retry is at most 500 ms.
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
  });

  it("waits until a Retry-After HTTP date before retrying", async () => {
    const at = new Date(Date.now() + 3000).toUTCString();
    const { fetch, seen } = fakeFetch(limited(at), json(200, health));
    await client(fetch).service.health();
    // The date has whole seconds, so the wait is between 2 and 3 s.
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(1500);
  });

  it.each([
    [400, undefined, false],
    [404, undefined, false],
    [408, undefined, true],
    [409, { detail: "x", code: "idempotency_key_in_use" }, true],
    [409, { detail: "x", code: "vault_not_active" }, false],
    [409, { detail: "x" }, true],
    [422, undefined, false],
    [429, undefined, true],
    [500, undefined, true],
    [501, undefined, false],
    [503, undefined, true],
  ])("status %s with body %j is retryable: %s", (status, body, want) => {
    expect(isRetryable(status, body)).toBe(want);
  });
});

describe("retry delays", () => {
  const now = Date.parse("2024-11-21T08:00:00Z");
  const headers = (value: string) => new Headers({ "retry-after": value });

  it.each([
    [0, 500],
    [1, 1000],
    [2, 2000],
    [4, 8000],
    [9, 8000],
  ])("backoff before retry %i is %i ms without jitter", (retry, ms) => {
    expect(retryDelay(retry, undefined, now, () => 0)).toBe(ms);
  });

  it("takes off at most a quarter as jitter", () => {
    expect(retryDelay(0, undefined, now, () => 1)).toBe(375);
  });

  it("reads Retry-After as seconds or as an HTTP date, capped", () => {
    expect(retryDelay(0, headers("7"), now)).toBe(7000);
    expect(retryDelay(0, headers("Thu, 21 Nov 2024 08:00:05 GMT"), now)).toBe(5000);
    expect(retryDelay(0, headers("86400"), now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter("Thu, 21 Nov 2024 07:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon", now)).toBeUndefined();
  });
});
