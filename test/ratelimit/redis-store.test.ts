import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { createLogger } from "../../server/logger.js";
import type { Outcome } from "../../server/ratelimit/algorithm.js";
import { RateLimiter } from "../../server/ratelimit/limiter.js";
import { MemoryStore } from "../../server/ratelimit/memory-store.js";
import { weightFor } from "../../server/ratelimit/paths.js";
import type { RedisStore } from "../../server/ratelimit/redis-store.js";
import { lanesOf, tierLimits } from "../../server/ratelimit/tiers.js";
import { PrivateRedis, redisUrl, uniquePrefix } from "../helpers/redis.js";
import { client, limiterSuite, passes } from "./limiter-suite.js";
import { connect, deleteConnectedKeys, HOUR } from "./redis-connect.js";

const logger = createLogger({ LOG_LEVEL: "silent" });

afterAll(deleteConnectedKeys);

const limiterOn = async (store: Promise<RedisStore>) =>
  new RateLimiter({ store: await store, logger, cleanupIntervalMs: 0 });

// Looks answered from the recent states (the default) and every look asked of Redis: with the test
// clock the two must agree exactly.
limiterSuite("redis", ({ algorithm, clock }) => connect({ algorithm, clock }));
describe("with every look asked of Redis", () => {
  limiterSuite("redis", ({ algorithm, clock }) => connect({ algorithm, clock, peekFreshnessMs: 0 }));
});

describe("redis store", () => {
  const open: RateLimiter[] = [];
  const limiter = async (options: Parameters<typeof connect>[0] = {}) => {
    const l = await limiterOn(connect(options));
    open.push(l);
    return l;
  };
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
  });

  it("shares one budget between instances", async () => {
    const prefix = uniquePrefix();
    const clock = new ManualClock();
    const [a, b] = [await limiter({ prefix, clock }), await limiter({ prefix, clock })];
    expect(await passes(a, client(), "/stamps", 1)).toBe(1);
    expect(await passes(b, client(), "/stamps", 2)).toBe(1);
    expect(await passes(a, client(), "/stamps", 1)).toBe(0);
  });

  it("keeps deployments with different prefixes apart", async () => {
    const clock = new ManualClock();
    expect(await passes(await limiter({ clock }), client(), "/stamps", 3)).toBe(2);
    expect(await passes(await limiter({ clock }), client(), "/stamps", 3)).toBe(2);
  });

  it.each(["token_bucket", "sliding_window"] as const)(
    "uses Redis's TIME without a test clock; %s keys carry the prefix and expire after the stale age",
    async (algorithm) => {
      const prefix = uniquePrefix();
      const l = await limiter({ prefix, algorithm });
      expect(await passes(l, client(), "/stamps", algorithm === "token_bucket" ? 3 : 11)).toBe(
        algorithm === "token_bucket" ? 2 : 10,
      );
      const inspect = new Redis(redisUrl);
      const ttl = await inspect.pttl(`${prefix}ratelimit:${algorithm}:ip:203.0.113.7`);
      inspect.disconnect();
      expect(ttl).toBeGreaterThan(HOUR - 60_000);
      expect(ttl).toBeLessThanOrEqual(HOUR);
      expect((await l.stats()).trackedClients).toBe(1);
    },
  );

  it.each(["token_bucket", "sliding_window"] as const)(
    "decides %s exactly like the memory store over a long random run (the Lua twin agrees)",
    async (algorithm) => {
      const clock = new ManualClock();
      const redisStore = await connect({ algorithm, clock });
      const memoryStore = new MemoryStore({ algorithm, clock, staleMs: HOUR, maxClients: 100 });
      const random = seeded(algorithm.length);
      const tiers = Object.values(tierLimits);
      const paths = ["/stamps", "/fingerprint", "/verify", "/explorer", "/presets", "/hash"];
      const seen: [Outcome, Outcome][] = [];
      try {
        for (let i = 0; i < 600; i++) {
          // Mostly faster than the anonymous refill (one every 3 s), with an occasional long pause.
          clock.advance(random() < 0.05 ? Math.floor(random() * 300_000) : Math.floor(random() * 1500));
          const who = `ip:203.0.113.${Math.floor(random() * 2)}`;
          const lanes = lanesOf(tiers[Math.floor(random() * 2)]!);
          const cost = weightFor(paths[Math.floor(random() * paths.length)]!);
          seen.push([
            await memoryStore.consume(who, lanes, cost),
            await redisStore.consume(who, lanes, cost),
          ]);
        }
      } finally {
        await redisStore.close();
      }
      for (const [i, [memory, redis]] of seen.entries()) expect(redis, `request ${i}`).toEqual(memory);
      // The run exercised both answers, not just one.
      expect(new Set(seen.map(([m]) => m.allowed))).toEqual(new Set([true, false]));
    },
  );

  describe("on a Redis of its own", () => {
    let redis: PrivateRedis;
    beforeAll(async () => {
      redis = await PrivateRedis.start();
    });
    afterAll(async () => {
      await redis.stop();
    });

    it("costs one round trip a request, and survives SCRIPT FLUSH and a restart", async () => {
      const l = await limiter({ url: redis.url });
      await redis.command("CONFIG", "RESETSTAT");
      expect(await passes(l, client(), "/", 10)).toBe(5);
      // The first request on a connection sends the script (EVAL), every later one its SHA.
      expect(await redis.commandStats()).toMatchObject({
        eval: { calls: 1, failed: 0 },
        evalsha: { calls: 9, failed: 0 },
      });

      await redis.command("SCRIPT", "FLUSH");
      await redis.command("CONFIG", "RESETSTAT");
      expect(await l.consume(client(), "/")).toMatchObject({ allowed: false });
      expect(await redis.commandStats()).toMatchObject({ evalsha: { failed: 1 }, eval: { calls: 1 } });

      await redis.restart();
      const decision = await untilAnswered(() => l.consume(client(), "/"));
      // The restarted Redis is empty, so the client starts with a full bucket.
      expect(decision).toMatchObject({ allowed: true, remaining: 4 });
    });

    it("takes a reply within the freshness bound as /health's ping, and PINGs once it is older", async () => {
      const clock = new ManualClock();
      const l = await limiter({ url: redis.url, clock });
      await redis.command("CONFIG", "RESETSTAT");
      await l.consume(client(), "/");
      await l.ping();
      expect((await redis.commandStats()).ping).toBeUndefined();
      clock.advance(1000);
      await l.ping();
      await l.ping();
      expect((await redis.commandStats()).ping).toMatchObject({ calls: 1 });
    });

    it("lets requests through, without headers, while Redis is down", async () => {
      const l = await limiter({ url: redis.url });
      await redis.stop();
      expect(await l.consume(client(), "/stamps")).toBeNull();
      await redis.restart();
      await untilAnswered(() => l.consume(client(), "/stamps"));
      expect((await l.stats()).storeErrors).toBeGreaterThanOrEqual(1);
    });

    it("refuses to start on an unreachable REDIS_URL", async () => {
      await redis.stop();
      await expect(connect({ url: redis.url })).rejects.toThrow(/cannot reach REDIS_URL/);
      await redis.restart();
    });
  });
});

/** Calls `f` until the limiter answers again (ioredis reconnects with a back-off of its own). */
/** A small deterministic generator (mulberry32), so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function untilAnswered<T>(f: () => T | null | Promise<T | null>): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const answer = await f();
    if (answer) return answer;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the limiter never reached Redis again");
}
