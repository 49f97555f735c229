import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { PrivateRedis, uniquePrefix } from "../helpers/redis.js";
import { type RunningService, startService } from "../helpers/service.js";

async function health(svc: RunningService) {
  const res = await fetch(`${svc.baseUrl}/health`);
  return { status: res.status, text: await res.text() };
}

describe("GET /health on a working service", () => {
  it("is ok, names each check, and says nothing else", async () => {
    const svc = await startService();
    try {
      const { status, text } = await health(svc);
      expect(status).toBe(200);
      expect(JSON.parse(text)).toEqual({
        status: "ok",
        version: expect.any(String),
        timestamp: expect.any(String),
        // No redis check without REDIS_URL.
        checks: { store: "ok", batcher: "ok", scheduler: "ok" },
      });
    } finally {
      await svc.close();
    }
  });
});

describe("GET /health with Redis configured", () => {
  let redis: PrivateRedis;
  let svc: RunningService;
  beforeAll(async () => {
    redis = await PrivateRedis.start();
    svc = await startService({ REDIS_URL: redis.url, REDIS_PREFIX: uniquePrefix() });
  });
  afterAll(async () => {
    await svc?.close();
    await redis?.stop();
  });

  it("checks Redis, is degraded while it is unreachable, and ok again once it is back", async () => {
    expect(JSON.parse((await health(svc)).text).checks).toEqual({
      store: "ok",
      redis: "ok",
      batcher: "ok",
      scheduler: "ok",
    });

    await redis.stop();
    const down = await health(svc);
    // Degraded, not down: the service still answers (rate limits fail open, events stay local).
    expect(down.status).toBe(200);
    expect(JSON.parse(down.text)).toMatchObject({
      status: "degraded",
      checks: { store: "ok", redis: "fail", batcher: "ok", scheduler: "ok" },
    });
    // The cause is in the server's log only: no address, port or error text in the answer.
    expect(down.text).not.toMatch(new RegExp(`127\\.0\\.0\\.1|${redis.port}|ECONNREFUSED|Error|closed`, "i"));
    expect((await fetch(`${svc.baseUrl}/presets`)).status).toBe(200);

    await redis.restart();
    // ioredis reconnects on its own backoff; the check follows as soon as both connections are back.
    await vi.waitFor(async () => expect(JSON.parse((await health(svc)).text).status).toBe("ok"), {
      timeout: 20_000,
      interval: 100,
    });
  });
});

describe("GET /health without its store", () => {
  it("is down, with 503", async () => {
    const svc = await startService();
    try {
      await svc.service.ctx.store.close();
      const { status, text } = await health(svc);
      expect(status).toBe(503);
      expect(JSON.parse(text)).toMatchObject({ status: "down", checks: { store: "fail" } });
      expect(text).not.toMatch(/database|sqlite|Error|\//i);
    } finally {
      await svc.close();
    }
  });
});
