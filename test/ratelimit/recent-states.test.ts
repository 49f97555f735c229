import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { createLogger } from "../../server/logger.js";
import { algorithms } from "../../server/ratelimit/algorithm.js";
import { type Decision, RateLimiter } from "../../server/ratelimit/limiter.js";
import { RecentStates } from "../../server/ratelimit/recent-states.js";
import { lanesOf, tierLimits } from "../../server/ratelimit/tiers.js";
import { PrivateRedis, uniquePrefix } from "../helpers/redis.js";
import { SeededRandom } from "../reliability/seeded-random.js";
import { client } from "./limiter-suite.js";
import { type ConnectOptions, connect, deleteConnectedKeys } from "./redis-connect.js";

// An exempt request (GET /health) is not charged but its response carries the caller's figures: the
// Redis store answers that look from what it last read of the client, not with a round trip of its
// own, while that is younger than RATE_LIMIT_PEEK_FRESHNESS_MS (server/ratelimit/recent-states.ts).

const logger = createLogger({ LOG_LEVEL: "silent" });
const health = { method: "GET", path: "/health" };
const anonymousLanes = lanesOf(tierLimits.anonymous);

afterAll(deleteConnectedKeys);

describe("recent states", () => {
  const states = (maxClients: number) =>
    new RecentStates({ algorithm: "token_bucket", freshnessMs: 1000, maxClients });
  const look = (s: RecentStates, key: string, nowMs: number) => s.peek(key, anonymousLanes, nowMs);

  it("refills what was read to the time of the look, as the token bucket's step does", () => {
    const s = states(10);
    // Read at script time 60 000 (3.5 and 150 tokens left), looked at 600 ms later: +0.2 tokens.
    s.remember("a", "60000 3.5 150", 60_000, 5);
    expect(look(s, "a", 605)).toEqual({ allowed: true, remaining: 3, resetMs: 3900, retryAfterMs: 0 });
  });

  it("answers only while younger than the freshness bound, and not for a time before the read", () => {
    const s = states(10);
    s.remember("a", "0 5 200", 0, 1000);
    expect(look(s, "a", 1999)).toBeDefined();
    expect(look(s, "a", 2000)).toBeUndefined();
    expect(look(s, "a", 999)).toBeUndefined();
    expect(look(s, "b", 1000)).toBeUndefined();
  });

  it("remembers at most maxClients, forgetting the longest read first", () => {
    const s = states(2);
    s.remember("a", "0 5 200", 0, 0);
    s.remember("b", "0 5 200", 0, 1);
    s.remember("a", "0 4 199", 0, 2); // read again: now the newest
    s.remember("c", "0 5 200", 0, 3);
    expect(["a", "b", "c"].map((key) => look(s, key, 4)?.remaining)).toEqual([4, undefined, 5]);
  });

  it("decodes the sliding window's slots, lane by lane", () => {
    const s = new RecentStates({ algorithm: "sliding_window", freshnessMs: 1000, maxClients: 10 });
    // Minute slots of 2 s: 3 requests in slot 100 (200-202 s); the hour lane, 2 min slots: slot 1.
    s.remember("a", "100 3;1 3", 201_000, 0);
    const outcome = look(s, "a", 500);
    expect(outcome).toEqual({ allowed: true, remaining: 17, resetMs: 262_000 - 201_500, retryAfterMs: 0 });
  });
});

describe.each(algorithms)("the Redis store's looks (%s)", (algorithm) => {
  let redis: PrivateRedis;
  let clock: ManualClock;
  let prefix: string;
  const open: RateLimiter[] = [];
  const limiter = async (options: ConnectOptions = {}) => {
    const store = await connect({ url: redis.url, prefix, clock, algorithm, ...options });
    const l = new RateLimiter({ store, logger, cleanupIntervalMs: 0 });
    open.push(l);
    return l;
  };
  const lookedUp = async (l: RateLimiter) => (await l.meter(client(), health, true)) as Decision;
  /** Script runs (EVAL and EVALSHA) since the last call: each is one round trip. */
  const roundTrips = async () => {
    const stats = await redis.commandStats();
    await redis.command("CONFIG", "RESETSTAT");
    return (stats.eval?.calls ?? 0) + (stats.evalsha?.calls ?? 0);
  };

  beforeAll(async () => {
    redis = await PrivateRedis.start();
  });
  afterAll(async () => {
    await redis.stop();
  });
  beforeEach(async () => {
    clock = new ManualClock();
    prefix = uniquePrefix();
    await redis.command("CONFIG", "RESETSTAT");
  });
  afterEach(async () => {
    for (const l of open.splice(0)) await l.close();
  });

  it("answers an exempt request right after a charge without a Redis command, as Redis would", async () => {
    const [remembering, asking] = [await limiter(), await limiter({ peekFreshnessMs: 0 })];
    await remembering.consume(client(), "/stamps");
    await remembering.consume(client(), "/fingerprint");
    expect(await roundTrips()).toBe(2);
    for (const ms of [0, 300, 600]) {
      clock.advance(ms);
      const remembered = await lookedUp(remembering);
      expect(await roundTrips()).toBe(0);
      expect(remembered).toEqual(await lookedUp(asking));
      expect(await roundTrips()).toBe(1);
    }
  });

  it("agrees with Redis's own look over a long random run of charges and looks", async () => {
    const [remembering, asking] = [await limiter(), await limiter({ peekFreshnessMs: 0 })];
    const paths = ["/stamps", "/fingerprint", "/", "/explorer", "/presets"];
    const random = new SeededRandom(7);
    let allowed = 0;
    for (let i = 0; i < 300; i++) {
      clock.advance(random.int(0, 1500));
      if (random.next() < 0.6 && (await remembering.consume(client(), random.pick(paths)))?.allowed) {
        allowed++;
      }
      expect(await lookedUp(remembering), `step ${i}`).toEqual(await lookedUp(asking));
    }
    // Both answers were seen: the run spent the budget and waited for it.
    expect(allowed).toBeGreaterThan(10);
    expect(allowed).toBeLessThan(180);
  });

  it("asks Redis again once what it read is as old as the freshness bound, and remembers that", async () => {
    const l = await limiter();
    await l.consume(client(), "/stamps");
    await roundTrips();
    clock.advance(999);
    await lookedUp(l);
    expect(await roundTrips()).toBe(0);
    clock.advance(1);
    await lookedUp(l);
    expect(await roundTrips()).toBe(1);
    await lookedUp(l);
    expect(await roundTrips()).toBe(0);
  });

  it("asks Redis for every look with a freshness of 0 (as before), and for every charge", async () => {
    const l = await limiter({ peekFreshnessMs: 0 });
    await l.consume(client(), "/stamps");
    for (let i = 0; i < 3; i++) await lookedUp(l);
    expect(await roundTrips()).toBe(4);
    const remembering = await limiter();
    for (let i = 0; i < 3; i++) await remembering.consume(client(), "/");
    expect(await roundTrips()).toBe(3);
  });

  it("shows another instance's charges after at most the freshness bound (headers only)", async () => {
    const [a, b] = [await limiter(), await limiter()];
    const before = await a.consume(client(), "/");
    await b.consume(client(), "/stamps");
    expect((await lookedUp(a)).remaining).toBe(before!.remaining);
    clock.advance(1000);
    const after = await lookedUp(a);
    expect(after.remaining).toBeLessThan(before!.remaining);
    // The charges themselves were exact: both went to Redis.
    expect(await lookedUp(b)).toEqual(after);
  });

  it("refills to now by Redis's TIME and this process's clock without a test clock", async () => {
    const [remembering, asking] = [
      await limiter({ clock: undefined }),
      await limiter({ clock: undefined, peekFreshnessMs: 0 }),
    ];
    await remembering.consume(client(), "/stamps");
    await roundTrips();
    const remembered = await lookedUp(remembering);
    expect(await roundTrips()).toBe(0);
    const asked = await lookedUp(asking);
    expect(remembered.remaining).toBe(asked.remaining);
    // Milliseconds pass between the two looks; a reset second may tick over.
    expect(Math.abs(remembered.resetSeconds - asked.resetSeconds)).toBeLessThanOrEqual(1);
  });
});
