import { Code, ConnectError } from "@connectrpc/connect";
import type { Principal } from "../auth/principal.js";
import { EPS } from "../ratelimit/algorithm.js";
import type { RateLimiter } from "../ratelimit/limiter.js";
import { weightFor } from "../ratelimit/paths.js";
import { rateLimited } from "./errors.js";

/**
 * The REST path whose weight (specs/openapi.yaml info, Rate limiting) each kind of StampService call pays, so a client has one
 * budget across REST, WebSocket and gRPC: a stamp (CreateStamp, GetStamp, one StreamStamps request,
 * one BatchStamp item) costs what `/stamps` costs, Verify what `/verify` costs, and opening a
 * WatchStamps stream what opening a WebSocket costs. HealthCheck is free.
 */
const paths = { stamp: "/stamps", verify: "/verify", watch: "/ws" } as const;

export type CallKind = keyof typeof paths;

/** Charges StampService calls to the caller's rate-limit budget; a no-op when rate limiting is off. */
export class CallLimits {
  constructor(private readonly limiter: RateLimiter | undefined) {}

  /**
   * How many calls of `kind` one charge may hold: as many as the smallest bucket of the caller's
   * tier holds (anonymous: 2 stamps, 4.0 of a 5-token burst). Unbounded when rate limiting is off.
   */
  perCharge(principal: Principal, kind: CallKind): number {
    if (!this.limiter) return Number.POSITIVE_INFINITY;
    return Math.max(1, Math.floor(this.limiter.maxWeight(principal.tier) / weightFor(paths[kind]) + EPS));
  }

  /**
   * Charges `count` calls of `kind` at once (all or nothing), each at its full weight, or fails with
   * RESOURCE_EXHAUSTED: when the budget holds less now (the message says when it will hold them
   * all), and at once when more than `perCharge` are asked for, which no wait would let through
   * (the limiter would count such a charge as one bucket's worth: a 1000-item batch for the price of
   * two items).
   */
  async charge(principal: Principal, kind: CallKind, count = 1): Promise<void> {
    if (!this.limiter) return;
    const path = paths[kind];
    const most = this.perCharge(principal, kind);
    if (count > most) throw overBucket(principal, count, most, weightFor(path));
    const decision = await this.limiter.meter(principal, { path, count });
    if (decision && !decision.allowed) {
      throw rateLimited(decision, count > 1 ? `all ${count} stamps` : undefined);
    }
  }
}

function overBucket(principal: Principal, count: number, most: number, weight: number): ConnectError {
  return new ConnectError(
    `rate limit: ${count} stamps cost ${count * weight} (${weight} each) but tier ${principal.tier} ` +
      `covers at most ${most} in one call; send at most ${most} items a call`,
    Code.ResourceExhausted,
  );
}
