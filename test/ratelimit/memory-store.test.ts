import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { createLogger } from "../../server/logger.js";
import { RateLimiter } from "../../server/ratelimit/limiter.js";
import { MemoryStore } from "../../server/ratelimit/memory-store.js";
import { client, limiterSuite, passes } from "./limiter-suite.js";

const HOUR = 3_600_000;
const logger = createLogger({ LOG_LEVEL: "silent" });

limiterSuite(
  "memory",
  async ({ algorithm, clock }) => new MemoryStore({ algorithm, clock, staleMs: HOUR, maxClients: 10_000 }),
);

describe("memory store cleanup", () => {
  const clock = new ManualClock();
  const limiterWith = (maxClients: number) =>
    new RateLimiter({
      store: new MemoryStore({ algorithm: "token_bucket", clock, staleMs: HOUR, maxClients }),
      logger,
      cleanupIntervalMs: 0,
    });
  const tracked = async (l: RateLimiter) => (await l.stats()).trackedClients;

  afterEach(() => {
    vi.useRealTimers();
  });

  it("forgets a client after an hour without requests, and only then", async () => {
    const l = limiterWith(100);
    await passes(l, client("203.0.113.1"), "/stamps", 3);
    clock.advance(1000);
    await passes(l, client("203.0.113.2"), "/", 1);
    clock.advance(HOUR - 1000);
    await l.sweep();
    expect(await tracked(l)).toBe(1);
    clock.advance(1000);
    await l.sweep();
    expect(await tracked(l)).toBe(0);
  });

  it("never tracks more than max_tracked_clients, dropping the least recently seen", async () => {
    const l = limiterWith(100);
    const busy = client("198.51.100.1");
    expect(await passes(l, busy, "/stamps", 3)).toBe(2);
    for (let i = 0; i < 250; i++) {
      await passes(l, client(`10.0.${i >> 8}.${i & 255}`), "/", 1);
      if (i % 50 === 0) expect(await passes(l, busy, "/stamps", 1)).toBe(0);
      expect(await tracked(l)).toBeLessThanOrEqual(100);
    }
    // The busy client kept its (empty) bucket throughout; the first of the others were dropped.
    expect(await tracked(l)).toBe(100);
    expect(await passes(l, client("10.0.0.1"), "/", 6)).toBe(5);
  });

  it("drops stale clients before active ones when full", async () => {
    const l = limiterWith(3);
    await passes(l, client("203.0.113.1"), "/stamps", 3);
    clock.advance(HOUR);
    await passes(l, client("203.0.113.2"), "/stamps", 3);
    await passes(l, client("203.0.113.3"), "/stamps", 3);
    await passes(l, client("203.0.113.4"), "/stamps", 3);
    expect(await tracked(l)).toBe(3);
    expect(await passes(l, client("203.0.113.2"), "/stamps", 1)).toBe(0);
  });

  it("sweeps every cleanup interval", async () => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const store = new MemoryStore({ algorithm: "token_bucket", clock, staleMs: HOUR, maxClients: 100 });
    const sweep = vi.spyOn(store, "sweep");
    const l = new RateLimiter({ store, logger, cleanupIntervalMs: 300_000 });
    vi.advanceTimersByTime(299_999);
    expect(sweep).not.toHaveBeenCalled();
    vi.advanceTimersByTime(600_001);
    expect(sweep).toHaveBeenCalledTimes(3);
    await l.close();
    vi.advanceTimersByTime(300_000);
    expect(sweep).toHaveBeenCalledTimes(3);
  });
});
