import type { Principal, Tier } from "../auth/principal.js";
import type { Logger } from "../logger.js";
import type { AlgorithmName, Outcome } from "./algorithm.js";
import { weightFor } from "./paths.js";
import type { LimiterStore } from "./store.js";
import { lanesOf, type TierLimits, tierLimits } from "./tiers.js";

/** The answer for one request, in the terms of the rate-limit headers (seed 8.4). */
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
  /** Per-tier limits; the seed's by default (the benchmark raises them). */
  tiers?: Record<Tier, TierLimits>;
}

/**
 * Per-client limits for every transport: the REST middleware calls `consume` for each request,
 * WebSocket and gRPC call it for their stamp and verify messages, so one client has one budget.
 * Knows nothing of HTTP.
 */
export class RateLimiter {
  private readonly tiers: Record<Tier, TierLimits>;
  private readonly counts = { allowed: zeroes(), limited: zeroes(), storeErrors: 0, cleanups: 0 };
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RateLimiterOptions) {
    this.tiers = options.tiers ?? tierLimits;
    if (options.cleanupIntervalMs > 0) {
      this.timer = setInterval(() => void this.sweep(), options.cleanupIntervalMs);
      this.timer.unref();
    }
  }

  /**
   * Charges one request of `principal` against its tier; `weight` defaults to the cost of `path`
   * (seed 8.2). Exempt paths (`isExempt`) are the caller's to skip. Never throws: when the store
   * fails it answers null (let the request through, send no rate-limit headers) and logs, as an
   * outage of Redis must not stop the service.
   */
  async consume(principal: Principal, path: string, weight = weightFor(path)): Promise<Decision | null> {
    const { tier } = principal;
    const limits = this.tiers[tier];
    let o: Outcome;
    try {
      o = await this.options.store.consume(principal.clientKey, lanesOf(limits), weight);
    } catch (err) {
      this.counts.storeErrors++;
      this.options.logger.warn({ err }, "rate-limit store failed; request let through");
      return null;
    }
    this.counts[o.allowed ? "allowed" : "limited"][tier]++;
    // Built field by field: an object spread here cost several microseconds a request (bench/).
    if (o.allowed) {
      return {
        allowed: true,
        tier,
        limit: limits.perMinute,
        remaining: o.remaining,
        resetSeconds: secs(o.resetMs),
        retryAfter: 0,
      };
    }
    const wait = o.retryAfterMs;
    return {
      allowed: false,
      tier,
      limit: limits.perMinute,
      remaining: 0,
      resetSeconds: secs(wait),
      retryAfter: wait / 1000,
    };
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
  return { anonymous: 0, authenticated: 0, premium: 0, internal: 0 };
}
