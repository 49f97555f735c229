import { describe, expect, it } from "vitest";
import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  createClient,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  StampdError,
  UnprocessableEntityError,
} from "../../sdk/src/index.js";
import { fakeFetch, json } from "./fake-fetch.js";

const client = (fetch: typeof globalThis.fetch) =>
  createClient({ baseUrl: "http://stampd.test", fetch, maxRetries: 0 });

describe("error classes", () => {
  it.each([
    [400, BadRequestError, "validation_failed"],
    [401, AuthenticationError, "invalid_api_key"],
    [403, PermissionDeniedError, "manual_release_not_allowed"],
    [404, NotFoundError, "stamp_not_found"],
    [409, ConflictError, "vault_not_active"],
    [413, PayloadTooLargeError, "payload_too_large"],
    [422, UnprocessableEntityError, "fee_insufficient"],
    [500, InternalServerError, undefined],
    [501, InternalServerError, "not_implemented"],
    [503, InternalServerError, undefined],
    [418, APIError, undefined],
  ])("%i is a %o", async (status, Class, code) => {
    const body = { detail: `failed with ${status}`, ...(code ? { code } : {}) };
    const { fetch } = fakeFetch(json(status, body, { "x-request-id": "req_123" }));
    const error = (await client(fetch)
      .stamps.get("stp_01JD3X7Q6V9M2K8T4R5N0B1C2D")
      .catch((e) => e)) as APIError;
    expect(error).toBeInstanceOf(Class);
    expect(error).toBeInstanceOf(StampdError);
    expect(error).toMatchObject({
      status,
      body,
      code,
      requestId: "req_123",
      message: `${status} failed with ${status}`,
    });
    expect(error.headers?.get("content-type")).toBe("application/json");
  });

  it("a 429 tells how long to wait and the tier, from the body", async () => {
    const body = {
      error: "rate_limit_exceeded",
      message: "slow down",
      retry_after: 2.5,
      tier: "authenticated",
      limit: 60,
    };
    const { fetch } = fakeFetch(json(429, body, { "retry-after": "3" }));
    const error = (await client(fetch)
      .presets.list()
      .catch((e) => e)) as RateLimitError;
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ retryAfter: 2.5, tier: "authenticated", code: "rate_limit_exceeded" });
  });

  it("a 429 with a plain error body falls back to the headers", async () => {
    const { fetch } = fakeFetch(
      json(429, { detail: "too many" }, { "retry-after": "4", "x-ratelimit-tier": "premium" }),
    );
    const error = (await client(fetch)
      .presets.list()
      .catch((e) => e)) as RateLimitError;
    expect(error).toMatchObject({ retryAfter: 4, tier: "premium" });
  });

  it("an HTML error page is kept as text", async () => {
    const { fetch } = fakeFetch(
      new Response("<h1>Stamp not found</h1>", { status: 404, headers: { "content-type": "text/html" } }),
    );
    const error = (await client(fetch)
      .verify.page("x")
      .catch((e) => e)) as NotFoundError;
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error.body).toBe("<h1>Stamp not found</h1>");
  });
});

describe("requests that get no answer", () => {
  it("a failed connection is an APIConnectionError with the cause", async () => {
    const cause = new TypeError("fetch failed");
    const { fetch } = fakeFetch(cause);
    const error = await client(fetch)
      .presets.list()
      .catch((e) => e);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(error.cause).toBe(cause);
    expect(error.status).toBeUndefined();
  });

  /** A fetch that never answers, but gives up when its signal aborts (as fetch does). */
  const hanging = (seen: AbortSignal[]) =>
    ((input: RequestInfo | URL, init?: RequestInit) => {
      const signal = new Request(input, init).signal;
      seen.push(signal);
      return new Promise<Response>((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason)),
      );
    }) as typeof globalThis.fetch;

  it("an attempt that takes longer than `timeout` is an APITimeoutError", async () => {
    const signals: AbortSignal[] = [];
    const stampd = createClient({
      baseUrl: "http://stampd.test",
      fetch: hanging(signals),
      timeout: 50,
      maxRetries: 1,
    });
    const error = await stampd.presets.list().catch((e) => e);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(error).toBeInstanceOf(APIConnectionError);
    expect(signals).toHaveLength(2);
  });

  it("the caller's signal aborts the request with APIUserAbortError and no retry", async () => {
    const signals: AbortSignal[] = [];
    const controller = new AbortController();
    const pending = client(hanging(signals)).presets.list({ signal: controller.signal, maxRetries: 3 });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    expect(signals).toHaveLength(1);
  });

  it("an abort during the wait between retries stops the retries", async () => {
    const controller = new AbortController();
    const { fetch, seen } = fakeFetch(json(503, { detail: "down" }, { "retry-after": "5" }));
    const pending = client(fetch).presets.list({ signal: controller.signal, maxRetries: 2 });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toBeInstanceOf(APIUserAbortError);
    expect(seen).toHaveLength(1);
  });
});
