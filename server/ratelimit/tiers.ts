import type { Tier } from "../auth/principal.js";

/** A tier's limits (the tier table of specs/openapi.yaml info, Rate limiting). */
export interface TierLimits {
  perMinute: number;
  perHour: number;
  burst: number;
}

export const tierLimits: Record<Tier, TierLimits> = {
  anonymous: { perMinute: 20, perHour: 200, burst: 5 },
  authenticated: { perMinute: 60, perHour: 1000, burst: 15 },
  premium: { perMinute: 200, perHour: 5000, burst: 50 },
  internal: { perMinute: 1000, perHour: 50000, burst: 200 },
};

/**
 * Each tier's budget of bulk items (a BatchStamp item, a StreamStamps request): per minute, per hour
 * and, as `burst`, a whole minute's items (stamp.proto, Rate limiting: Bulk items). Apart from the
 * request budget, so that stamping an archive is practical on a normal key while every tier stays
 * bounded.
 */
export const bulkItemLimits: Record<Tier, TierLimits> = {
  anonymous: { perMinute: 60, perHour: 600, burst: 60 },
  authenticated: { perMinute: 10_000, perHour: 100_000, burst: 10_000 },
  premium: { perMinute: 50_000, perHour: 1_000_000, burst: 50_000 },
  internal: { perMinute: 200_000, perHour: 10_000_000, burst: 200_000 },
};

/**
 * One of the limits a request must pass: `limit` per `periodMs`. The token bucket holds at most
 * `burst` tokens and refills `limit` per period; the sliding window counts `limit` per rolling
 * period and ignores `burst` (no burst tolerance: docs/design.md, Rate limiting).
 */
export interface Lane {
  limit: number;
  periodMs: number;
  burst: number;
}

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;

/**
 * The minute and hour lanes of a tier. The hour bucket's capacity is the whole hourly limit: the
 * spec gives no hourly burst, and the minute bucket already caps how fast it can be spent.
 */
export function lanesOf(limits: TierLimits): [Lane, Lane] {
  return [
    { limit: limits.perMinute, periodMs: MINUTE_MS, burst: limits.burst },
    { limit: limits.perHour, periodMs: HOUR_MS, burst: limits.perHour },
  ];
}
