import type { Tier } from "../auth/principal.js";
import { type Clock, systemClock } from "../clock.js";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import { RateLimiter } from "./limiter.js";
import { MemoryStore } from "./memory-store.js";
import type { LimiterStore } from "./store.js";
import type { TierLimits } from "./tiers.js";

export interface OpenLimiterOptions {
  logger: Logger;
  /** A test clock; without one the memory store reads the system clock and Redis its own TIME. */
  clock?: Clock;
  /** Replaces the spec's limits (the benchmark raises them so nothing is throttled). */
  tiers?: Record<Tier, TierLimits>;
  /** Replaces the spec's bulk items budgets, likewise. */
  bulkItems?: Record<Tier, TierLimits>;
}

/** The limiter the configuration asks for; none when `RATE_LIMIT_ENABLED` is false. */
export async function openRateLimiter(
  config: Config,
  options: OpenLimiterOptions,
): Promise<RateLimiter | undefined> {
  if (!config.RATE_LIMIT_ENABLED) return undefined;
  return new RateLimiter({
    store: await openLimiterStore(config, options),
    logger: options.logger,
    cleanupIntervalMs: config.RATE_LIMIT_CLEANUP_INTERVAL_SECONDS * 1000,
    tiers: options.tiers,
    bulkItems: options.bulkItems,
    pagesPerMinute: config.PAGE_RATE_LIMIT_PER_MINUTE,
  });
}

/**
 * Redis when `REDIS_URL` is set, so instances share limits, with this process's memory standing in
 * while Redis does not answer unless `RATE_LIMIT_REDIS_FAILURE` is `open`; this process's memory
 * otherwise. The Redis client is imported only then.
 */
async function openLimiterStore(
  config: Config,
  { logger, clock }: OpenLimiterOptions,
): Promise<LimiterStore> {
  const memory = () =>
    new MemoryStore({
      algorithm: config.RATE_LIMIT_ALGORITHM,
      staleMs: config.RATE_LIMIT_STALE_SECONDS * 1000,
      clock: clock ?? systemClock,
      maxClients: config.RATE_LIMIT_MAX_TRACKED_CLIENTS,
    });
  if (!config.REDIS_URL) return memory();
  const { RedisStore } = await import("./redis-store.js");
  return RedisStore.connect({
    algorithm: config.RATE_LIMIT_ALGORITHM,
    staleMs: config.RATE_LIMIT_STALE_SECONDS * 1000,
    url: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    clock,
    logger,
    peekFreshnessMs: config.RATE_LIMIT_PEEK_FRESHNESS_MS,
    maxClients: config.RATE_LIMIT_MAX_TRACKED_CLIENTS,
    timeoutMs: config.REDIS_TIMEOUT_MS,
    fallback: config.RATE_LIMIT_REDIS_FAILURE === "local" ? memory() : undefined,
  });
}
