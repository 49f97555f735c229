import { afterEach, describe, expect, it, vi } from "vitest";
import { CHECK_TIMEOUT_MS, HealthChecks, type HealthSources } from "../../server/health/health-checks.js";
import { LoopLiveness } from "../../server/health/loop-liveness.js";
import { createLogger } from "../../server/logger.js";
import { describeStore } from "../../server/store/describe.js";

const logger = createLogger({ LOG_LEVEL: "silent" });
const alive = { alive: () => true };
const dead = { alive: () => false };
const reachable = () => Promise.resolve();
const unreachable = () => Promise.reject(new Error("connect ECONNREFUSED 10.0.0.7:6379"));

const report = (sources: Partial<HealthSources>) =>
  new HealthChecks(
    { store: { ping: reachable }, batcher: alive, scheduler: alive, ...sources },
    logger,
  ).report();

describe("the health status", () => {
  it.each([
    ["every check passes", {}, "ok"],
    ["the store fails", { store: { ping: unreachable } }, "down"],
    ["Redis fails", { redis: unreachable }, "degraded"],
    ["the batcher stopped", { batcher: dead }, "degraded"],
    ["the vault scheduler stopped", { scheduler: dead }, "degraded"],
    ["the store and the batcher fail", { store: { ping: unreachable }, batcher: dead }, "down"],
  ] as const)("%s: %s", async (_, sources, status) => {
    expect((await report(sources)).status).toBe(status);
  });

  it("lists the redis check only when Redis is configured", async () => {
    expect(Object.keys((await report({})).checks)).toEqual(["store", "batcher", "scheduler"]);
    expect((await report({ redis: reachable })).checks).toEqual({
      store: "ok",
      redis: "ok",
      batcher: "ok",
      scheduler: "ok",
    });
  });
});

describe("a dependency that does not answer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`fails after ${CHECK_TIMEOUT_MS} ms instead of holding /health`, async () => {
    vi.useFakeTimers();
    const pending = report({ redis: () => new Promise(() => {}) });
    await vi.advanceTimersByTimeAsync(CHECK_TIMEOUT_MS);
    expect(await pending).toEqual({
      status: "degraded",
      checks: { store: "ok", redis: "fail", batcher: "ok", scheduler: "ok" },
    });
  });
});

describe("LoopLiveness", () => {
  it("is alive for three intervals (at least 30 s) after the last completed pass", async () => {
    let now = 0;
    const loop = new LoopLiveness(20_000, () => now);
    now = 60_000;
    expect(loop.alive()).toBe(true);
    now = 60_001;
    expect(loop.alive()).toBe(false);
    await loop.run(async () => {});
    expect(loop.alive()).toBe(true);

    const fast = new LoopLiveness(1000, () => now);
    now += 30_000;
    expect(fast.alive()).toBe(true);
    now += 1;
    expect(fast.alive()).toBe(false);
  });

  it("does not count a failed pass as a sign of life", async () => {
    let now = 0;
    const loop = new LoopLiveness(1000, () => now);
    now = 25_000;
    await expect(
      loop.run(async () => {
        throw new Error("database is locked");
      }),
    ).rejects.toThrow("database is locked");
    now = 30_001;
    expect(loop.alive()).toBe(false);
  });

  it("keeps an hourly loop (the tests' pipeline) alive for three hours", () => {
    let now = 0;
    const loop = new LoopLiveness(3_600_000, () => now);
    now = 3 * 3_600_000;
    expect(loop.alive()).toBe(true);
  });
});

describe("the store in the start-up log", () => {
  it.each([
    [{ DATA_DIR: "/srv/stampd" }, "sqlite /srv/stampd/stampd.db"],
    [{ DATA_DIR: "d", DATABASE_URL: "sqlite:/var/lib/s.db" }, "sqlite /var/lib/s.db"],
    [
      {
        DATA_DIR: "d",
        DATABASE_URL: "postgres://stampd:s3cret@db.internal:5432/prod?options=-c%20search_path%3Dx",
      },
      "postgres stampd@db.internal:5432/prod",
    ],
    [{ DATA_DIR: "d", DATABASE_URL: "postgresql://db/prod" }, "postgres db/prod"],
  ])("%j: %s", (config, line) => {
    expect(describeStore(config)).toBe(line);
  });
});
