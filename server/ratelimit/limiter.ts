import { rateLimitTiers } from "../../gen/openapi/enums.js";
import type { Principal, Tier } from "../auth/principal.js";
import type { Logger } from "../logger.js";
import type { AlgorithmName, Outcome } from "./algorithm.js";
import { type MeteredRequest, requestClass, weightFor } from "./paths.js";
import type { LimiterStore } from "./store.js";
import { bulkItemLimits, type Lane, lanesOf, MINUTE_MS, type TierLimits, tierLimits } from "./tiers.js";

/** The answer for one request, in the terms of the rate-limit headers (specs/openapi.yaml info, Rate limiting). */
export interface Decision {
  allowed: boolean;
  tier: Tier;
  /** Requests per minute of the tier (`X-RateLimit-Limit`, body `limit`). */
  limit: number;
  /** Whole requests left (`X-RateLimit-Remaining`); 0 when refused. */
  remaining: number;
  /** Whole seconds until the client's headroom is full again; when refused, `Retry-After`. */
  resetSeconds: number;
  /** Exact seconds to wait (body `retry_after`); 0 when allowed. */
  retryAfter: number;
}

/**
 * What metering answers: the decision (null: nothing to say, or the store failed), or a promise of
 * it when the store must be asked over the network (a Redis charge). Awaiting either works.
 */
export type Metered = Decision | null | Promise<Decision | null>;

export interface RateLimitStats {
  algorithm: AlgorithmName;
  store: LimiterStore["kind"];
  trackedClients: number;
  allowed: Record<Tier, number>;
  limited: Record<Tier, number>;
  /** Requests let through because the store failed (fail open). */
  storeErrors: number;
  /** Sweeps of idle clients run (timer and explicit). */
  cleanups: number;
}

export interface RateLimiterOptions {
  store: LimiterStore;
  logger: Logger;
  /** How often idle clients are forgotten (`RATE_LIMIT_CLEANUP_INTERVAL_SECONDS`); 0 = never on a timer. */
  cleanupIntervalMs: number;
  /** Per-tier limits; the spec's by default (the benchmark raises them). */
  tiers?: Record<Tier, TierLimits>;
  /** Per-tier bulk items budgets (`bulkItemLimits` by default; the benchmark raises them). */
  bulkItems?: Record<Tier, TierLimits>;
  /** Page requests a client may make a minute (`PAGE_RATE_LIMIT_PER_MINUTE`); 0 = not limited. */
  pagesPerMinute?: number;
}

/**
 * Per-client limits for every transport: REST, the WebSocket (its upgrade and its stamp and verify
 * messages) and gRPC all charge through `meter`, so one client has one budget. Knows nothing of HTTP.
 */
export class RateLimiter {
  private readonly tiers: Record<Tier, TierLimits>;
  /** Each tier's lanes, built once: they are the same for every request. */
  private readonly lanes: Record<Tier, readonly Lane[]>;
  private readonly bulk: Record<Tier, TierLimits>;
  private readonly bulkLanes: Record<Tier, readonly Lane[]>;
  private readonly pageLanes: readonly Lane[];
  private readonly counts = { allowed: zeroes(), limited: zeroes(), storeErrors: 0, cleanups: 0 };
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RateLimiterOptions) {
    this.tiers = options.tiers ?? tierLimits;
    this.lanes = mapTiers((tier) => lanesOf(this.tiers[tier]));
    this.bulk = options.bulkItems ?? bulkItemLimits;
    this.bulkLanes = mapTiers((tier) => lanesOf(this.bulk[tier]));
    const perMinute = options.pagesPerMinute ?? 0;
    this.pageLanes = [{ limit: perMinute, periodMs: MINUTE_MS, burst: perMinute }];
    if (options.cleanupIntervalMs > 0) {
      this.timer = setInterval(() => void this.sweep(), options.cleanupIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * The one way a transport charges a request: by its class (`requestClass`), an API request (every
   * gRPC call and WebSocket message) is charged `count` times its path's weight to the caller's
   * tier, a page request to the caller's page budget, an exempt one is not charged and only
   * reported (null when `labelExempt` is off: there is nothing to say). A refused decision is
   * answered in the words of `refusalMessage` (rate-limited.ts). The decision itself, not a
   * promise, when the store can answer at once (see `LimiterStore.consumeNow`): awaiting it costs
   * an exempt `GET /health` a good part of its limiter overhead (bench/ratelimit.bench.ts).
   */
  meter(principal: Principal, req: MeteredRequest, labelExempt = false): Metered {
    switch (requestClass(req)) {
      case "exempt":
        return labelExempt ? this.peek(principal) : null;
      case "page":
        return this.consumePage(principal);
      default:
        return this.consume(principal, req.path, weightFor(req.path) * (req.count ?? 1));
    }
  }

  /**
   * Charges one request of `principal` against its tier; `weight` defaults to the cost of `path`
   * (specs/openapi.yaml info, Rate limiting). Never throws: when the store fails it answers null (let the request through, send
   * no rate-limit headers) and logs, as an outage of Redis must not stop the service.
   */
  consume(principal: Principal, path: string, weight = weightFor(path)): Metered {
    const { tier } = principal;
    return this.decide(tier, principal.clientKey, this.tiers[tier].perMinute, this.lanes[tier], weight);
  }

  /**
   * Charges `count` bulk items (BatchStamp items, StreamStamps requests) at once, all or nothing,
   * to the caller's items budget, kept apart from its request budget (stamp.proto, Rate limiting:
   * Bulk items). The decision's figures are items: `limit` a minute, `remaining` left. Call it
   * with at most `maxItems` items: more would be counted as that many.
   */
  meterItems(principal: Principal, count: number): Metered {
    const { tier } = principal;
    const key = `items:${principal.clientKey}`;
    return this.decide(tier, key, this.bulk[tier].perMinute, this.bulkLanes[tier], count);
  }

  /** The most bulk items one charge of `tier` may hold: a whole minute's (`capacity`). */
  maxItems(tier: Tier): number {
    return this.capacity(this.bulkLanes[tier]);
  }

  /** The caller's tier figures without charging anything (the exempt paths' headers). */
  peek(principal: Principal): Metered {
    const { tier } = principal;
    return this.decide(tier, principal.clientKey, this.tiers[tier].perMinute, this.lanes[tier], 0);
  }

  /**
   * Charges one page load (or a page's own background request) to the client's page budget, kept
   * apart from its API budget so that reloading a page never costs API calls; the tier's figures
   * without a charge when pages are not limited.
   */
  consumePage(principal: Principal): Metered {
    const perMinute = this.options.pagesPerMinute ?? 0;
    if (perMinute === 0) return this.peek(principal);
    return this.decide(principal.tier, `page:${principal.clientKey}`, perMinute, this.pageLanes, 1);
  }

  private decide(
    tier: Tier,
    clientKey: string,
    limit: number,
    lanes: readonly Lane[],
    weight: number,
  ): Metered {
    const { store } = this.options;
    let known: Outcome | undefined;
    try {
      known = store.consumeNow(clientKey, lanes, weight);
    } catch (err) {
      return this.storeFailed(err);
    }
    if (known) return this.decision(tier, limit, weight, known);
    return store.consume(clientKey, lanes, weight).then(
      (o) => this.decision(tier, limit, weight, o),
      (err: unknown) => this.storeFailed(err),
    );
  }

  private decision(tier: Tier, limit: number, weight: number, o: Outcome): Decision {
    // A look without a charge is not a request let through.
    if (weight > 0) this.counts[o.allowed ? "allowed" : "limited"][tier]++;
    // Built field by field: an object spread here cost several microseconds a request (bench/).
    if (o.allowed) {
      return {
        allowed: true,
        tier,
        limit,
        remaining: o.remaining,
        resetSeconds: secs(o.resetMs),
        retryAfter: 0,
      };
    }
    const wait = o.retryAfterMs;
    return {
      allowed: false,
      tier,
      limit,
      remaining: 0,
      resetSeconds: secs(wait),
      retryAfter: wait / 1000,
    };
  }

  private storeFailed(err: unknown): null {
    this.counts.storeErrors++;
    this.options.logger.warn({ err }, "rate-limit store failed; request let through");
    return null;
  }

  /**
   * The largest weight one charge of `tier` is counted in full: the smallest lane's capacity (a
   * token bucket's burst, a sliding window's limit). `consume` counts a larger weight as that
   * capacity, so that any single request can pass once the budget is full; gRPC charges of many
   * items stay under it instead of passing for less than they cost.
   */
  maxWeight(tier: Tier): number {
    return this.capacity(this.lanes[tier]);
  }

  private capacity(lanes: readonly Lane[]): number {
    const tokenBucket = this.options.store.algorithm === "token_bucket";
    return Math.min(...lanes.map((lane) => (tokenBucket ? lane.burst : lane.limit)));
  }

  /** For the host program and `GET /metrics`: counts since start, clients tracked now. */
  async stats(): Promise<RateLimitStats> {
    const { store } = this.options;
    return {
      algorithm: store.algorithm,
      store: store.kind,
      trackedClients: await store.trackedClients(),
      allowed: { ...this.counts.allowed },
      limited: { ...this.counts.limited },
      storeErrors: this.counts.storeErrors,
      cleanups: this.counts.cleanups,
    };
  }

  /** Forgets idle clients now; also runs every cleanup interval. */
  async sweep(): Promise<void> {
    await this.options.store.sweep().then(
      () => void this.counts.cleanups++,
      (err) => this.options.logger.warn({ err }, "rate-limit sweep failed"),
    );
  }

  /** Resolves when the limiter's shared state is reachable (/health). */
  ping(): Promise<void> {
    return this.options.store.ping();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.options.store.close();
  }
}

const secs = (ms: number) => Math.ceil(ms / 1000);

function zeroes(): Record<Tier, number> {
  return mapTiers(() => 0);
}

/** A value per tier of the spec's list. */
function mapTiers<T>(valueFor: (tier: Tier) => T): Record<Tier, T> {
  return Object.fromEntries(rateLimitTiers.map((tier) => [tier, valueFor(tier)])) as Record<Tier, T>;
}
