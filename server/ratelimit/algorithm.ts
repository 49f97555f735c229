import type { Lane } from "./tiers.js";

export const algorithms = ["token_bucket", "sliding_window"] as const;
export type AlgorithmName = (typeof algorithms)[number];

/** What one request did to a client's lanes. Whole numbers, so both stores report alike. */
export interface Outcome {
  allowed: boolean;
  /** Whole requests (tokens) left in the lane with the fewest left. */
  remaining: number;
  /** Milliseconds until that lane is back to full. */
  resetMs: number;
  /** Milliseconds until this request would pass; 0 when it passed. */
  retryAfterMs: number;
}

/**
 * One algorithm's decision as a pure function of the stored state (undefined for a client not seen
 * yet), for the in-memory store. The Redis store runs the same steps in Lua (`*.lua` beside these
 * files); the shared test suite holds both to the same results.
 */
export interface Algorithm<S = unknown> {
  name: AlgorithmName;
  step(state: S | undefined, lanes: readonly Lane[], cost: number, nowMs: number): Step<S>;
}

export interface Step<S> {
  state: S;
  outcome: Outcome;
}

/** Absorbs float noise from fractional weights (0.1 + 0.2 …) so 5 x 1.0 - 10 x 0.1 leaves exactly 4. */
export const EPS = 1e-9;

/** Whole milliseconds, rounded up, but not past float noise (3000.0000000004 is 3000). */
export const ceilMs = (ms: number): number => Math.max(0, Math.ceil(ms - 1e-6));

/** What a lane shows after the request: whole requests left and milliseconds until full. */
export interface LaneView {
  remaining: number;
  resetMs: number;
}

/**
 * The outcome reported for the lane with the fewest whole requests left; on a tie the one that takes
 * longer to refill, so a client waiting `reset` seconds really finds the headroom back.
 */
export function reportedOutcome(allowed: boolean, lanes: LaneView[], waitMs: number): Outcome {
  let shown = lanes[0]!;
  for (const lane of lanes) {
    if (
      lane.remaining < shown.remaining ||
      (lane.remaining === shown.remaining && lane.resetMs > shown.resetMs)
    ) {
      shown = lane;
    }
  }
  const retryAfterMs = allowed ? 0 : Math.max(1, ceilMs(waitMs));
  return { allowed, remaining: shown.remaining, resetMs: shown.resetMs, retryAfterMs };
}
