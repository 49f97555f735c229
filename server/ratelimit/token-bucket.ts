import { type Algorithm, ceilMs, EPS, reportedOutcome, type Step } from "./algorithm.js";
import type { Lane } from "./tiers.js";

/**
 * The token bucket (docs/design.md, Rate limiting): one bucket per lane holding up to `burst` tokens, refilled at `limit` per period.
 * A request needs `cost` tokens in every bucket (at most a bucket's capacity, so any request can
 * pass eventually) and takes them from all or none. State: `[atMs, tokens per lane...]`.
 */
export const tokenBucket: Algorithm<number[]> = {
  name: "token_bucket",
  step(state, lanes, cost, nowMs): Step<number[]> {
    const elapsed = state ? Math.max(0, nowMs - state[0]!) : 0;
    const buckets = lanes.map((lane, i) => refill(lane, state?.[i + 1], elapsed, cost));
    const allowed = buckets.every((b) => b.tokens >= b.need - EPS);
    let waitMs = 0;
    const next = [Math.max(nowMs, state?.[0] ?? nowMs)];
    for (const b of buckets) {
      if (allowed) b.tokens -= b.need;
      else waitMs = Math.max(waitMs, Math.max(0, b.need - b.tokens) / b.rate);
      next.push(b.tokens);
    }
    const views = buckets.map((b) => ({
      remaining: Math.floor(b.tokens + EPS),
      resetMs: ceilMs((b.capacity - b.tokens) / b.rate),
    }));
    return { state: next, outcome: reportedOutcome(allowed, views, waitMs) };
  },
};

function refill(lane: Lane, stored: number | undefined, elapsedMs: number, cost: number) {
  const capacity = lane.burst;
  const rate = lane.limit / lane.periodMs;
  const tokens = Math.min(capacity, (stored ?? capacity) + elapsedMs * rate);
  return { capacity, rate, tokens, need: Math.min(cost, capacity) };
}
