// The upgrade request: API key by header or query parameter, refusals (bad key, origin, rate limit),
// and the user_* channels that need an account.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { ids, label, publish, vaultEvents } from "./events.js";
import { refusedUpgrade, TestClient } from "./ws-client.js";

const BAD_KEY = `svc_test_${"A".repeat(43)}`;

describe("authentication on the upgrade", () => {
  let svc: RunningService;
  let alice: { key: string; accountId: string };

  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_ENABLED: "false" });
    alice = await issueKey(svc);
  });
  afterAll(async () => {
    await svc.close();
  });

  const ways: [
    string,
    (key: string) => { headers?: Record<string, string>; query?: Record<string, string> },
  ][] = [
    ["Authorization: Bearer", (key) => ({ headers: { Authorization: `Bearer ${key}` } })],
    ["X-API-Key", (key) => ({ headers: { "X-API-Key": key } })],
    ["?api_key= (browsers)", (key) => ({ query: { api_key: key } })],
  ];

  it.each(ways)("identifies the account from %s for user_vaults", async (_name, how) => {
    const c = await TestClient.connect(svc.baseUrl, how(alice.key));
    await c.subscribe("user_vaults");
    publish(svc.service.ctx.events, vaultEvents(ids.vaultA, alice.accountId).slice(1, 2));
    expect((await c.drain()).map(label)).toEqual([`vault_heartbeat:${ids.vaultA}`]);
    c.close();
  });

  it.each(ways)("refuses a bad key in %s with 401", async (_name, how) => {
    const refused = await refusedUpgrade(svc.baseUrl, how(BAD_KEY));
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toMatchObject({ code: "invalid_api_key" });
    expect(refused.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  it("prefers the Bearer key over the other two", async () => {
    const refused = await refusedUpgrade(svc.baseUrl, {
      headers: { Authorization: `Bearer ${BAD_KEY}`, "X-API-Key": alice.key },
      query: { api_key: alice.key },
    });
    expect(refused.status).toBe(401);
  });

  it.each(["user_stamps", "user_vaults"])(
    "answers %s on an anonymous connection with unauthenticated",
    async (channel) => {
      const c = await TestClient.connect(svc.baseUrl);
      const reply = await c.request({ type: "subscribe", data: { channel } });
      expect(reply).toMatchObject({ type: "error", data: { code: "unauthenticated" } });
      c.close();
    },
  );
});

describe("origin check", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({
      RATE_LIMIT_ENABLED: "false",
      CORS_ORIGINS: "https://app.example.com",
      SERVICE_BASE_URL: "https://stampd.example.com/base",
    });
  });
  afterAll(async () => {
    await svc.close();
  });

  it("accepts the service's own public origin (its dashboard) even when CORS_ORIGINS omits it", async () => {
    const dashboard = await TestClient.connect(svc.baseUrl, {
      headers: { Origin: "https://stampd.example.com" },
    });
    dashboard.close();
  });

  it("accepts an allowed Origin and clients that send none", async () => {
    const browser = await TestClient.connect(svc.baseUrl, { headers: { Origin: "https://app.example.com" } });
    const script = await TestClient.connect(svc.baseUrl);
    browser.close();
    script.close();
  });

  it("refuses another Origin with 403", async () => {
    const refused = await refusedUpgrade(svc.baseUrl, { headers: { Origin: "https://evil.example.com" } });
    expect(refused.status).toBe(403);
  });
});

describe("rate limiting", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_ENABLED: "true" });
  });
  afterAll(async () => {
    await svc.close();
  });

  it("counts the upgrade like any request: an anonymous client gets 5, then 429", async () => {
    const first = await TestClient.connect(svc.baseUrl);
    expect(first.upgradeHeaders).toMatchObject({
      "x-ratelimit-tier": "anonymous",
      "x-ratelimit-remaining": "4",
    });
    const clients = [first, ...(await Promise.all([2, 3, 4, 5].map(() => TestClient.connect(svc.baseUrl))))];
    const refused = await refusedUpgrade(svc.baseUrl);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(refused.body)).toMatchObject({
      error: "rate_limit_exceeded",
      tier: "anonymous",
      limit: 20,
    });
    for (const c of clients) c.close();
  });
});
