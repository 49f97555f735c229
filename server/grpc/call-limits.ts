import type { Principal } from "../auth/principal.js";
import type { RateLimiter } from "../ratelimit/limiter.js";
import { weightFor } from "../ratelimit/paths.js";
import { rateLimited } from "./errors.js";

/**
 * The REST path whose weight (seed 8.2) each kind of StampService call pays, so a client has one
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
   * Charges `count` calls of `kind` at once (all or nothing), or fails with RESOURCE_EXHAUSTED. A
   * weight above a bucket's capacity is charged as the whole bucket (the limiter's rule, so any call
   * can pass eventually): a large batch empties the caller's budget rather than never passing.
   */
  async charge(principal: Principal, kind: CallKind, count = 1): Promise<void> {
    if (!this.limiter) return;
    const path = paths[kind];
    const decision = await this.limiter.consume(principal, path, weightFor(path) * count);
    if (decision && !decision.allowed) throw rateLimited(decision);
  }
}
