import type { AlgorithmName, Outcome } from "./algorithm.js";
import type { Lane } from "./tiers.js";

/**
 * Where limiter state lives. `consume` applies one request to one client atomically: two
 * concurrent requests never both spend the same token, in one process or across instances.
 */
export interface LimiterStore {
  readonly kind: "memory" | "redis";
  readonly algorithm: AlgorithmName;
  consume(clientKey: string, lanes: Lane[], cost: number): Promise<Outcome>;
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
