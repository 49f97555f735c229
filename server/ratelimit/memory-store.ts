import type { Clock } from "../clock.js";
import type { Algorithm, AlgorithmName, Outcome } from "./algorithm.js";
import { algorithms } from "./algorithms.js";
import type { LimiterStore, StoreOptions } from "./store.js";
import type { Lane } from "./tiers.js";

interface Entry {
  state: unknown;
  seenMs: number;
}

export interface MemoryStoreOptions extends StoreOptions {
  clock: Clock;
  /** Above this many clients, the least recently seen are forgotten (`RATE_LIMIT_MAX_TRACKED_CLIENTS`, docs/configuration.md). */
  maxClients: number;
}

/**
 * Limiter state in this process. The map is kept in order of last use (an entry is moved to the
 * end on every request), so both stale clients and, past `maxClients`, the least recently seen
 * ones are at the front and are dropped without scanning the rest.
 */
export class MemoryStore implements LimiterStore {
  readonly kind = "memory";
  readonly algorithm: AlgorithmName;
  private readonly impl: Algorithm;
  private readonly clients = new Map<string, Entry>();

  constructor(private readonly options: MemoryStoreOptions) {
    this.algorithm = options.algorithm;
    this.impl = algorithms[options.algorithm];
  }

  async consume(clientKey: string, lanes: readonly Lane[], cost: number): Promise<Outcome> {
    return this.consumeNow(clientKey, lanes, cost);
  }

  consumeNow(clientKey: string, lanes: readonly Lane[], cost: number): Outcome {
    const nowMs = this.options.clock.now().getTime();
    const entry = this.clients.get(clientKey);
    const { state, outcome } = this.impl.step(entry?.state, lanes, cost, nowMs);
    this.clients.delete(clientKey);
    this.clients.set(clientKey, { state, seenMs: nowMs });
    if (!entry && this.clients.size > this.options.maxClients) this.evict(nowMs);
    return outcome;
  }

  async trackedClients(): Promise<number> {
    return this.clients.size;
  }

  async sweep(): Promise<void> {
    this.dropStale(this.options.clock.now().getTime());
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.clients.clear();
  }

  /**
   * Stale clients first; if every client is active, the least recently seen go too, since memory
   * must stay bounded. Such a client starts afresh when it returns: with 10000 slots that takes
   * 10000 other clients within its idle time.
   */
  private evict(nowMs: number): void {
    this.dropStale(nowMs);
    for (const key of this.clients.keys()) {
      if (this.clients.size <= this.options.maxClients) break;
      this.clients.delete(key);
    }
  }

  private dropStale(nowMs: number): void {
    for (const [key, entry] of this.clients) {
      if (nowMs - entry.seenMs < this.options.staleMs) break;
      this.clients.delete(key);
    }
  }
}
