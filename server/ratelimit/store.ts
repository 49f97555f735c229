import type { AlgorithmName, Outcome } from "./algorithm.js";
import type { Lane } from "./tiers.js";

/**
 * Where limiter state lives. `consume` applies one request to one client atomically: two
 * concurrent requests never both spend the same token, in one process or across instances.
 */
export interface LimiterStore {
  readonly kind: "memory" | "redis";
  readonly algorithm: AlgorithmName;
  consume(clientKey: string, lanes: readonly Lane[], cost: number): Promise<Outcome>;
  /**
   * What `consume` would answer, when it can be had without waiting: always in memory; in Redis,
   * for a look (cost 0) that a fresh remembered state answers. Undefined when only `consume` can
   * tell. Lets a transport answer most requests without a promise (bench/ratelimit.bench.ts).
   */
  consumeNow(clientKey: string, lanes: readonly Lane[], cost: number): Outcome | undefined;
  /** How many clients have state; Redis counts keys, so call it rarely (statistics, not per request). */
  trackedClients(): Promise<number>;
  /** Forgets clients idle longer than the stale age (Redis does this itself with key TTLs). */
  sweep(): Promise<void>;
  /** Resolves when the state is reachable (always, in memory). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface StoreOptions {
  algorithm: AlgorithmName;
  /** A client idle this long is forgotten (`RATE_LIMIT_STALE_SECONDS`, docs/configuration.md). */
  staleMs: number;
}
