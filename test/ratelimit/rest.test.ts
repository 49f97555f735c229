import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { KeyTier } from "../../server/auth/principal.js";
import { ManualClock } from "../../server/clock.js";
import { issueKey } from "../helpers/keys.js";
import { deleteKeys, redisUrl, uniquePrefix } from "../helpers/redis.js";
import { type RunningService, startService } from "../helpers/service.js";

const rateLimitHeaders = [
  "x-ratelimit-limit",
  "x-ratelimit-remaining",
  "x-ratelimit-reset",
  "x-ratelimit-tier",
];
const redisPrefix = uniquePrefix();

afterAll(() => deleteKeys(redisUrl, redisPrefix));

const stores: [string, Record<string, string>][] = [
  ["memory", {}],
  ["redis", { REDIS_URL: redisUrl, REDIS_PREFIX: redisPrefix }],
];

describe.each(stores)("REST rate limiting on the %s store", (_name, storeEnv) => {
  let svc: RunningService | undefined;
  let clock: ManualClock;

  /** A service whose limiter runs on `clock`; each gets its own Redis prefix, so no test sees another's state. */
  async function start(env: Record<string, string> = {}) {
    clock = new ManualClock();
    const own: Record<string, string> = storeEnv.REDIS_PREFIX
      ? { REDIS_PREFIX: `${storeEnv.REDIS_PREFIX}${crypto.randomUUID()}:` }
      : {};
    svc = await startService({ ...storeEnv, ...own, ...env }, { clock });
    return svc;
  }
  const request = (path: string, init: RequestInit = {}) => fetch(`${svc!.baseUrl}${path}`, init);
  const postStamp = (headers: Record<string, string> = {}) => request("/stamps", { method: "POST", headers });
  const limitHeaders = (res: Response) =>
    Object.fromEntries(
      rateLimitHeaders.flatMap((h) => (res.headers.has(h) ? [[h, res.headers.get(h)]] : [])),
    );

  afterEach(async () => {
    await svc?.close();
    svc = undefined;
  });

  it("lets an anonymous client make exactly 2 rapid POST /stamps; the third is 429 (burst 5, a stamp costs 2)", async () => {
    await start();
    const [first, second, third] = [await postStamp(), await postStamp(), await postStamp()];
    expect([first.status, second.status]).not.toContain(429);
    expect(limitHeaders(first)).toEqual({
      "x-ratelimit-limit": "20",
      "x-ratelimit-remaining": "3",
      "x-ratelimit-reset": "6",
      "x-ratelimit-tier": "anonymous",
    });
    expect(limitHeaders(second)).toMatchObject({ "x-ratelimit-remaining": "1", "x-ratelimit-reset": "12" });

    expect(third.status).toBe(429);
    expect(third.headers.get("content-type")).toMatch(/^application\/json/);
    expect(third.headers.get("retry-after")).toBe("3");
    expect(limitHeaders(third)).toEqual({
      "x-ratelimit-limit": "20",
      "x-ratelimit-remaining": "0",
      "x-ratelimit-reset": "3",
      "x-ratelimit-tier": "anonymous",
    });
    expect(await third.json()).toEqual({
      error: "rate_limit_exceeded",
      message: "Rate limit exceeded for tier anonymous. Retry after 3 seconds.",
      retry_after: 3,
      tier: "anonymous",
      limit: 20,
    });

    clock.advance(3000);
    expect((await postStamp()).status).not.toBe(429);
    expect(await svc!.service.rateLimiter!.stats()).toMatchObject({
      allowed: { anonymous: 3 },
      limited: { anonymous: 1 },
      trackedClients: 1,
    });
  });

  it.each([
    ["authenticated", 15, 60],
    ["premium", 50, 200],
    ["internal", 200, 1000],
  ] as const)(
    "gives a key of tier %s a burst of %i and a limit of %i a minute",
    async (tier: KeyTier, burst, perMinute) => {
      await start();
      const { key } = await issueKey(svc!, { tier });
      // GET /ws/stats costs the default 1.0 (`/` is on the page budget since issue #36).
      const get = () => request("/ws/stats", { headers: { authorization: `Bearer ${key}` } });
      for (let i = 0; i < burst; i++) expect((await get()).status).toBe(200);
      const refused = await get();
      expect(refused.status).toBe(429);
      expect(limitHeaders(refused)).toMatchObject({
        "x-ratelimit-tier": tier,
        "x-ratelimit-limit": `${perMinute}`,
      });
      expect(await refused.json()).toMatchObject({ tier, limit: perMinute });
      // The key's budget is its own: the same machine without the key is still anonymous and fresh.
      expect(limitHeaders(await request("/ws/stats"))).toMatchObject({
        "x-ratelimit-tier": "anonymous",
        "x-ratelimit-remaining": "4",
      });
    },
  );

  it("keeps the peer's bucket when an untrusted peer sends X-Forwarded-For or X-Real-IP", async () => {
    await start({ TRUSTED_PROXIES: "10.0.0.1" });
    expect((await postStamp({ "x-forwarded-for": "198.51.100.1" })).status).not.toBe(429);
    expect((await postStamp({ "x-real-ip": "198.51.100.2" })).status).not.toBe(429);
    expect((await postStamp({ "x-forwarded-for": "198.51.100.3" })).status).toBe(429);
  });

  it("believes X-Forwarded-For from a trusted proxy: each forwarded client has its own bucket", async () => {
    await start();
    for (const ip of ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) {
      expect((await postStamp({ "x-forwarded-for": ip })).status).not.toBe(429);
    }
  });

  it("never limits nor charges the exempt paths and their assets, and labels them all", async () => {
    await start();
    const exempt = [
      "/health",
      "/openapi.json",
      "/docs",
      "/docs/init.js",
      "/docs/assets/swagger-ui.css",
      "/redoc",
      "/redoc/assets/redoc.standalone.js",
      "/pages/assets/pages.css",
    ];
    for (const path of exempt) {
      for (let i = 0; i < 6; i++) {
        const res = await request(path);
        expect(res.status, path).toBe(200);
        // The caller's tier figures (on every response, specs/openapi.yaml info), with nothing taken.
        expect(limitHeaders(res), path).toEqual({
          "x-ratelimit-limit": "20",
          "x-ratelimit-remaining": "5",
          "x-ratelimit-reset": "0",
          "x-ratelimit-tier": "anonymous",
        });
        await res.arrayBuffer();
      }
    }
    for (let i = 0; i < 60; i++) expect((await request("/health")).status).toBe(200);
    // Nothing above was charged.
    expect(limitHeaders(await request("/ws/stats"))).toMatchObject({ "x-ratelimit-remaining": "4" });
  });

  it("labels refusals too: a 401 for a refused key, a 404, a 400; and a key's exempt calls with its tier", async () => {
    await start();
    const refusedKey = await request("/health", { headers: { "x-api-key": "svc_live_nope" } });
    expect(refusedKey.status).toBe(401);
    // The refused key was charged 1.0 to the address's anonymous bucket; its figures say so.
    expect(limitHeaders(refusedKey)).toMatchObject({
      "x-ratelimit-tier": "anonymous",
      "x-ratelimit-remaining": "4",
    });
    const missing = await request("/no/such/path");
    expect(missing.status).toBe(404);
    expect(limitHeaders(missing)).toMatchObject({
      "x-ratelimit-tier": "anonymous",
      "x-ratelimit-remaining": "3",
    });
    const bad = await request("/health?unknown=1");
    expect(bad.status).toBe(400);
    expect(limitHeaders(bad)).toMatchObject({ "x-ratelimit-remaining": "3" });
    const { key } = await issueKey(svc!, { tier: "premium" });
    expect(
      limitHeaders(await request("/openapi.json", { headers: { authorization: `Bearer ${key}` } })),
    ).toEqual({
      "x-ratelimit-limit": "200",
      "x-ratelimit-remaining": "50",
      "x-ratelimit-reset": "0",
      "x-ratelimit-tier": "premium",
    });
  });

  it("marks every response nosniff, JSON answers and refusals included", async () => {
    await start();
    for (const path of [
      "/health",
      "/",
      "/no/such/path",
      "/openapi.json",
      "/stamps/stp_01JD3X7Q6V9M2K8T4R5N0B1C2D",
    ]) {
      expect((await request(path)).headers.get("x-content-type-options"), path).toBe("nosniff");
    }
    for (let i = 0; i < 3; i++) await postStamp();
    const refused = await postStamp();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("does not charge CORS preflights", async () => {
    await start();
    const preflight = { origin: "https://app.example", "access-control-request-method": "POST" };
    for (let i = 0; i < 5; i++) {
      const res = await request("/stamps", { method: "OPTIONS", headers: preflight });
      expect(res.status).toBe(204);
      expect(limitHeaders(res)).toEqual({});
    }
    expect((await postStamp()).status).not.toBe(429);
    expect((await postStamp()).status).not.toBe(429);
  });

  it("switches to the sliding window: 10 POST /stamps a minute, no burst size", async () => {
    await start({ RATE_LIMIT_ALGORITHM: "sliding_window" });
    for (let i = 0; i < 10; i++) expect((await postStamp()).status).not.toBe(429);
    const refused = await postStamp();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("62");
  });

  it("sends Retry-After and the body on a 429 even with the rate-limit headers turned off", async () => {
    await start({ RATE_LIMIT_HEADERS: "false" });
    for (const path of ["/health", "/docs"]) expect(limitHeaders(await request(path))).toEqual({});
    const responses = [await postStamp(), await postStamp(), await postStamp()];
    for (const res of responses) expect(limitHeaders(res)).toEqual({});
    expect(responses[2]!.status).toBe(429);
    expect(responses[2]!.headers.get("retry-after")).toBe("3");
    expect(await responses[2]!.json()).toMatchObject({ error: "rate_limit_exceeded", retry_after: 3 });
    expect(limitHeaders(await request("/no/such/path"))).toEqual({});
  });
});

describe("REST with rate limiting turned off", () => {
  it("never answers 429 and adds no rate-limit headers", async () => {
    const svc = await startService({ RATE_LIMIT_ENABLED: "false" });
    try {
      expect(svc.service.rateLimiter).toBeUndefined();
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${svc.baseUrl}/stamps`, { method: "POST" });
        expect(res.status).not.toBe(429);
        for (const h of rateLimitHeaders) expect(res.headers.has(h)).toBe(false);
      }
    } finally {
      await svc.close();
    }
  });
});
