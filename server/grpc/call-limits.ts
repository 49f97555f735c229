import { Code, ConnectError } from "@connectrpc/connect";
import type { Principal } from "../auth/principal.js";
import type { Decision, RateLimiter } from "../ratelimit/limiter.js";
import { itemsRefusalMessage } from "../ratelimit/rate-limited.js";
import { rateLimited } from "./errors.js";

/**
 * The REST path whose weight (specs/openapi.yaml info, Rate limiting) each kind of StampService call pays, so a client has one
 * budget across REST, WebSocket and gRPC: a stamp (CreateStamp, GetStamp, a BatchStamp call, the
 * start of a StreamStamps call) costs what `/stamps` costs, Verify what `/verify` costs, and opening a
 * WatchStamps stream what opening a WebSocket costs. HealthCheck is free. The items of BatchStamp
 * and StreamStamps are charged to the bulk items budget instead (`chargeItems`).
 */
const paths = { stamp: "/stamps", verify: "/verify", watch: "/ws" } as const;

export type CallKind = keyof typeof paths;

/** What is left of a caller's bulk items budget, as the `x-ratelimit-items-*` metadata says it. */
export type ItemsMetadata = Record<string, string>;

/** Charges StampService calls to the caller's rate-limit budgets; a no-op when rate limiting is off. */
export class CallLimits {
  constructor(private readonly limiter: RateLimiter | undefined) {}

  /** Charges one call of `kind` to the request budget, or fails with RESOURCE_EXHAUSTED and pushback. */
  async charge(principal: Principal, kind: CallKind): Promise<void> {
    if (!this.limiter) return;
    const decision = await this.limiter.meter(principal, { path: paths[kind] });
    if (decision && !decision.allowed) throw rateLimited(decision);
  }

  /**
   * How many bulk items one charge may hold: a whole minute of the caller's tier (anonymous 60).
   * Unbounded when rate limiting is off.
   */
  itemsPerCharge(principal: Principal): number {
    return this.limiter ? this.limiter.maxItems(principal.tier) : Number.POSITIVE_INFINITY;
  }

  /** Fails at once with RESOURCE_EXHAUSTED, without pushback, when `count` items exceed one charge. */
  checkItemsFit(principal: Principal, count: number): void {
    const most = this.itemsPerCharge(principal);
    if (count > most) throw overCapacity(principal, count, most);
  }

  /**
   * Charges `count` bulk items at once (all or nothing) to the caller's items budget and answers
   * what is left as metadata (empty when rate limiting is off or its store failed), or fails with
   * RESOURCE_EXHAUSTED carrying that metadata: with pushback when the budget holds less now, and
   * at once, without pushback and charging nothing, when more than `itemsPerCharge` are asked
   * for, which no wait would let through. `count` 0 charges nothing and only reports.
   */
  async chargeItems(principal: Principal, count: number): Promise<ItemsMetadata> {
    if (!this.limiter) return {};
    this.checkItemsFit(principal, count);
    const decision = await this.limiter.meterItems(principal, count);
    if (!decision) return {};
    const metadata = itemsMetadata(decision);
    if (decision.allowed) return metadata;
    const refused = rateLimited(decision, itemsRefusalMessage(decision, count));
    for (const [name, value] of Object.entries(metadata)) refused.metadata.set(name, value);
    throw refused;
  }
}

/** The `x-ratelimit-items-*` metadata of a decision of the items budget (stamp.proto, Rate limiting). */
function itemsMetadata(d: Decision): ItemsMetadata {
  return {
    "x-ratelimit-items-limit": String(d.limit),
    "x-ratelimit-items-remaining": String(d.remaining),
    "x-ratelimit-items-reset": String(d.resetSeconds),
  };
}

function overCapacity(principal: Principal, count: number, most: number): ConnectError {
  return new ConnectError(
    `item limit: ${count} items but tier ${principal.tier} covers at most ${most} in one call; ` +
      `send at most ${most} items a call`,
    Code.ResourceExhausted,
    { "x-ratelimit-items-limit": String(most) },
  );
}
