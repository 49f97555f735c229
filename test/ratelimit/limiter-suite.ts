import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anonymous, type Principal, type Tier } from "../../server/auth/principal.js";
import { ManualClock } from "../../server/clock.js";
import { createLogger } from "../../server/logger.js";
import type { AlgorithmName } from "../../server/ratelimit/algorithm.js";
import { type Decision, RateLimiter } from "../../server/ratelimit/limiter.js";
import type { LimiterStore } from "../../server/ratelimit/store.js";

export type StoreFactory = (options: {
  algorithm: AlgorithmName;
  clock: ManualClock;
}) => Promise<LimiterStore>;

const logger = createLogger({ LOG_LEVEL: "silent" });
export const client = (ip = "203.0.113.7"): Principal => anonymous(`ip:${ip}`);
export const keyed = (tier: Tier, id: string = tier): Principal => ({
  accountId: `acc_${id}`,
  keyId: id,
  tier,
  clientKey: `key:${id}`,
});

/** How many of `n` requests pass, one after the other, at the same instant. */
export async function passes(limiter: RateLimiter, who: Principal, path: string, n: number): Promise<number> {
  let allowed = 0;
  for (let i = 0; i < n; i++) if ((await limiter.consume(who, path))?.allowed) allowed++;
  return allowed;
}

/** The behaviour every store must show: run once per store, with a clock the test drives. */
export function limiterSuite(storeName: string, makeStore: StoreFactory): void {
  describe(`rate limiter on the ${storeName} store`, () => {
    let clock: ManualClock;
    let limiter: RateLimiter | undefined;
    const open = async (algorithm: AlgorithmName = "token_bucket") => {
      limiter = new RateLimiter({
        store: await makeStore({ algorithm, clock }),
        logger,
        cleanupIntervalMs: 0,
      });
      return limiter;
    };
    const consume = async (
      l: RateLimiter,
      who: Principal,
      path: string,
      weight?: number,
    ): Promise<Decision> => {
      const decision = await l.consume(who, path, weight);
      if (!decision) throw new Error("the store failed");
      return decision;
    };

    beforeEach(() => {
      clock = new ManualClock();
    });
    afterEach(async () => {
      await limiter?.close();
      limiter = undefined;
    });

    describe("token bucket", () => {
      it("lets an anonymous client make exactly 2 rapid POST /stamps, then says how long to wait", async () => {
        const l = await open();
        const who = client();
        const seen = [];
        for (let i = 0; i < 3; i++) seen.push(await consume(l, who, "/stamps"));
        const common = { tier: "anonymous", limit: 20 };
        expect(seen).toEqual([
          { ...common, allowed: true, remaining: 3, resetSeconds: 6, retryAfter: 0 },
          { ...common, allowed: true, remaining: 1, resetSeconds: 12, retryAfter: 0 },
          { ...common, allowed: false, remaining: 0, resetSeconds: 3, retryAfter: 3 },
        ]);
      });

      it.each([
        ["anonymous", 5, 20],
        ["authenticated", 15, 60],
        ["premium", 50, 200],
        ["internal", 200, 1000],
      ] as const)(
        "gives the %s tier a burst of %i and a refill of %i a minute",
        async (tier, burst, perMinute) => {
          const l = await open();
          const who = tier === "anonymous" ? client() : keyed(tier);
          expect(await passes(l, who, "/", burst)).toBe(burst);
          const refused = await consume(l, who, "/");
          expect(refused).toMatchObject({ allowed: false, tier, limit: perMinute, remaining: 0 });
          expect(refused.retryAfter).toBeCloseTo(60 / perMinute, 3);
          expect(refused.resetSeconds).toBe(Math.ceil(60 / perMinute));
        },
      );

      it("refills requests_per_minute / 60 tokens a second", async () => {
        const l = await open();
        const who = client();
        expect(await passes(l, who, "/", 6)).toBe(5);
        clock.advance(2999);
        expect((await consume(l, who, "/")).allowed).toBe(false);
        clock.advance(1);
        expect(await passes(l, who, "/", 2)).toBe(1);
      });

      it("lets the hour bucket bind once the minute bucket keeps refilling", async () => {
        const l = await open();
        const who = client();
        // One request every 3 s is exactly the minute refill: the minute bucket never runs dry,
        // while the hour bucket (200, refilling 200 an hour) loses 5/6 of a token a step.
        let allowed = 0;
        while ((await consume(l, who, "/")).allowed) {
          allowed++;
          clock.advance(3000);
        }
        expect(allowed).toBe(239);
        clock.advance(60_000);
        expect(await passes(l, who, "/", 4)).toBe(4);
        const refused = await consume(l, who, "/");
        // The minute bucket still holds a token: only the hour bucket refuses, and it is slow.
        expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 15 });
      });

      it.each([
        ["/stamps", 2],
        ["/stamps/stp_01JD4A2S7K9X3M5N8P0Q1R2T4V/verify", 2],
        ["/fingerprint/compare", 3],
        ["/verify", 5],
        ["/identity", 5],
        ["/vault/list", 5],
        ["/explorer/api/stats", 10],
        ["/presets", 50],
        ["/hash", 5],
        ["/", 5],
      ])("charges %s by its weight: %i pass from a full anonymous bucket", async (path, expected) => {
        const l = await open();
        expect(await passes(l, client(), path, expected + 1)).toBe(expected);
      });

      it("reports whole tokens left, and lets an explicit weight replace the path's", async () => {
        const l = await open();
        const who = client();
        expect((await consume(l, who, "/fingerprint")).remaining).toBe(3);
        expect((await consume(l, who, "/", 0.5)).remaining).toBe(3);
        expect((await consume(l, who, "/", 3)).allowed).toBe(true);
        expect((await consume(l, who, "/", 0.1)).allowed).toBe(false);
      });

      it("charges a weight above the burst as the whole burst, so it can pass at all", async () => {
        const l = await open();
        const who = client();
        expect((await consume(l, who, "/", 10)).allowed).toBe(true);
        expect((await consume(l, who, "/", 0.1)).allowed).toBe(false);
      });

      it("keeps clients apart", async () => {
        const l = await open();
        expect(await passes(l, client("203.0.113.1"), "/stamps", 3)).toBe(2);
        expect(await passes(l, client("203.0.113.2"), "/stamps", 3)).toBe(2);
        expect(await passes(l, keyed("anonymous", "k1"), "/stamps", 3)).toBe(2);
      });

      it("never spends one token twice under concurrent requests", async () => {
        const l = await open();
        const who = client();
        const decisions = await Promise.all(Array.from({ length: 12 }, () => l.consume(who, "/stamps")));
        expect(decisions.filter((d) => d?.allowed)).toHaveLength(2);
      });

      it("counts allowed and limited requests by tier for the host program", async () => {
        const l = await open();
        await passes(l, client(), "/stamps", 3);
        await passes(l, keyed("premium"), "/", 1);
        expect(await l.stats()).toEqual({
          algorithm: "token_bucket",
          store: storeName,
          trackedClients: 2,
          allowed: { anonymous: 2, authenticated: 0, premium: 1, internal: 0 },
          limited: { anonymous: 1, authenticated: 0, premium: 0, internal: 0 },
          storeErrors: 0,
          cleanups: 0,
        });
      });
    });

    describe("sliding window", () => {
      it("has no burst: the minute's whole count passes at once, and nothing more until it leaves", async () => {
        const l = await open("sliding_window");
        const who = client();
        expect(await consume(l, who, "/")).toMatchObject({ allowed: true, remaining: 19, resetSeconds: 62 });
        expect(await passes(l, who, "/", 20)).toBe(19);
        expect(await consume(l, who, "/")).toMatchObject({
          allowed: false,
          resetSeconds: 62,
          retryAfter: 62,
        });
        // A token bucket would have refilled 10 by now; the window still holds all 20.
        clock.advance(30_000);
        expect(await consume(l, who, "/")).toMatchObject({ allowed: false, retryAfter: 32 });
        clock.advance(32_000);
        expect(await passes(l, who, "/", 21)).toBe(20);
      });

      it("rolls: requests leave the window by age, not at a fixed minute boundary", async () => {
        const l = await open("sliding_window");
        const who = client();
        expect(await passes(l, who, "/", 10)).toBe(10);
        clock.advance(40_000);
        expect(await passes(l, who, "/", 10)).toBe(10);
        clock.advance(21_999);
        expect((await consume(l, who, "/")).allowed).toBe(false);
        clock.advance(1);
        expect(await passes(l, who, "/", 10)).toBe(10);
        expect(await consume(l, who, "/")).toMatchObject({ allowed: false, retryAfter: 40 });
      });

      it("lets the hour window bind at a pace the minute window allows", async () => {
        const l = await open("sliding_window");
        const who = client();
        let allowed = 0;
        while ((await consume(l, who, "/")).allowed) {
          allowed++;
          clock.advance(4000);
        }
        expect(allowed).toBe(200);
        // The first request (t = 0) leaves the hour window 62 min after it was made; now is t = 800 s.
        expect(await consume(l, who, "/")).toMatchObject({ allowed: false, retryAfter: 2920 });
      });

      it("charges weights: 10 POST /stamps fill an anonymous minute", async () => {
        const l = await open("sliding_window");
        expect(await passes(l, client(), "/stamps", 11)).toBe(10);
        expect(await passes(l, client("203.0.113.9"), "/presets", 201)).toBe(200);
      });

      it("never counts one slot twice under concurrent requests", async () => {
        const l = await open("sliding_window");
        const decisions = await Promise.all(Array.from({ length: 15 }, () => l.consume(client(), "/stamps")));
        expect(decisions.filter((d) => d?.allowed)).toHaveLength(10);
      });
    });

    describe.each(["token_bucket", "sliding_window"] as const)(
      "peek and the page budget (%s)",
      (algorithm) => {
        it("peek reports the tier's figures and charges nothing, not even a slot", async () => {
          const l = await open(algorithm);
          for (let i = 0; i < 50; i++) {
            expect(await l.peek(client())).toMatchObject({
              allowed: true,
              tier: "anonymous",
              limit: 20,
              resetSeconds: 0,
            });
          }
          const first = await consume(l, client(), "/stamps");
          expect(first.allowed).toBe(true);
          expect(await l.peek(client())).toMatchObject({
            remaining: first.remaining,
            resetSeconds: first.resetSeconds,
          });
          expect((await l.stats()).allowed.anonymous).toBe(1);
        });

        it("charges pages to a budget apart from the API's", async () => {
          limiter = new RateLimiter({
            store: await makeStore({ algorithm, clock }),
            logger,
            cleanupIntervalMs: 0,
            pagesPerMinute: 30,
          });
          const page = { method: "GET", path: "/verify/stp_x" };
          const decisions = [];
          for (let i = 0; i < 31; i++) decisions.push(await limiter.meter(client(), page, true));
          expect(decisions.filter((d) => d?.allowed)).toHaveLength(30);
          expect(decisions.at(-1)).toMatchObject({ allowed: false, limit: 30, tier: "anonymous" });
          expect(await limiter.meter(client(), { method: "GET", path: "/presets" }, true)).toMatchObject({
            allowed: true,
            limit: 20,
          });
        });
      },
    );
  });
}
