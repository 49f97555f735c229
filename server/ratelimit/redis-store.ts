import { readFileSync } from "node:fs";
import type { Redis } from "ioredis";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import { connectRedis, createRedisClient } from "../redis-client.js";
import type { AlgorithmName, Outcome } from "./algorithm.js";
import { RecentStates } from "./recent-states.js";
import { SLOTS } from "./sliding-window.js";
import type { LimiterStore, StoreOptions } from "./store.js";
import type { Lane } from "./tiers.js";

const scripts: Record<AlgorithmName, string> = {
  token_bucket: readFileSync(new URL("./token-bucket.lua", import.meta.url), "utf8"),
  sliding_window: readFileSync(new URL("./sliding-window.lua", import.meta.url), "utf8"),
};

export interface RedisStoreOptions extends StoreOptions {
  url: string;
  /** Put before every key, so deployments (and test runs) can share one Redis (`REDIS_PREFIX`). */
  prefix: string;
  /** Tests only: the script then takes its time from here instead of Redis's `TIME`. */
  clock?: Clock;
  logger: Logger;
  /**
   * How long what a charge or a look read may answer a later look of the same client from memory
   * (`RATE_LIMIT_PEEK_FRESHNESS_MS`); 0 = every look asks Redis.
   */
  peekFreshnessMs: number;
  /** At most this many clients' states remembered for looks (`RATE_LIMIT_MAX_TRACKED_CLIENTS`). */
  maxClients: number;
  /** `REDIS_TIMEOUT_MS`: connecting and each command (server/redis-client.ts). */
  timeoutMs: number;
  /**
   * Answers while Redis does not (`RATE_LIMIT_REDIS_FAILURE=local`: this instance's memory); none
   * (`open`): the charge fails and the limiter lets the request through unlimited.
   */
  fallback?: LimiterStore;
}

type Reply = [
  allowed: number,
  remaining: number,
  resetMs: number,
  retryAfterMs: number,
  scriptMs: string,
  state: string,
];

interface LimiterCommands {
  ratelimit(key: string, ...args: (string | number)[]): Promise<Reply>;
}

/**
 * Limiter state in Redis, shared by every instance. Each charge is one round trip: one Lua script
 * reads, decides and writes atomically. ioredis sends it as EVALSHA and falls back to EVAL on
 * NOSCRIPT, so a Redis restart or SCRIPT FLUSH costs one extra round trip, not an error. The clock
 * is Redis's own `TIME`, one clock for all instances. Keys expire after the stale age. A look
 * without a charge (cost 0: an exempt request's headers) is answered from what this instance read
 * last for the client when that is fresh enough (recent-states.ts): without it every `GET /health`
 * paid a round trip for its headers alone (bench/ratelimit.bench.ts).
 *
 * While Redis does not answer (refused, reset, or silent past `REDIS_TIMEOUT_MS`, after which the
 * client reconnects) the fallback store answers instead, at once while the connection is down, so
 * an outage neither fails nor holds a request (docs/operations.md "When a dependency fails").
 */
export class RedisStore implements LimiterStore {
  readonly kind = "redis";
  readonly algorithm: AlgorithmName;

  private readonly recent: RecentStates | undefined;
  /** This process's clock (`localMs`) when Redis last answered on this connection. */
  private answeredMs = Number.NEGATIVE_INFINITY;
  /** Whether the last charge went to the fallback: one log line per outage, not one per request. */
  private fellBack = false;

  private constructor(
    private readonly redis: Redis & LimiterCommands,
    private readonly options: RedisStoreOptions,
  ) {
    this.algorithm = options.algorithm;
    const { algorithm, peekFreshnessMs: freshnessMs, maxClients } = options;
    if (freshnessMs > 0) this.recent = new RecentStates({ algorithm, freshnessMs, maxClients });
  }

  /** Connects first, so a wrong `REDIS_URL` stops the start rather than the first request. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const { url, timeoutMs, logger } = options;
    const redis = createRedisClient({ url, timeoutMs, logger, purpose: "rate-limit" });
    redis.defineCommand("ratelimit", { numberOfKeys: 1, lua: scripts[options.algorithm] });
    await connectRedis(redis, "rate limiting");
    return new RedisStore(redis as Redis & LimiterCommands, options);
  }

  async consume(clientKey: string, lanes: readonly Lane[], cost: number): Promise<Outcome> {
    const known = this.consumeNow(clientKey, lanes, cost);
    if (known) return known;
    let outcome: Outcome;
    try {
      outcome = await this.charge(clientKey, lanes, cost);
    } catch (err) {
      const { fallback } = this.options;
      if (!fallback) throw err;
      this.fallingBack(err);
      return fallback.consume(clientKey, lanes, cost);
    }
    this.answered();
    return outcome;
  }

  /**
   * A look answered from this instance's recent states; a charge always goes to Redis, or, while
   * the connection is down, to the fallback at once.
   */
  consumeNow(clientKey: string, lanes: readonly Lane[], cost: number): Outcome | undefined {
    const { fallback } = this.options;
    if (fallback && this.redis.status !== "ready") {
      this.fallingBack(new Error(`the rate-limit Redis connection is ${this.redis.status}`));
      return fallback.consumeNow(clientKey, lanes, cost);
    }
    return cost === 0 ? this.recent?.peek(clientKey, lanes, this.localMs()) : undefined;
  }

  private async charge(clientKey: string, lanes: readonly Lane[], cost: number): Promise<Outcome> {
    const now = this.options.clock ? this.options.clock.now().getTime() : "";
    const args = [now, cost, this.options.staleMs, ...this.laneArgs(lanes)];
    const [allowed, remaining, resetMs, retryAfterMs, scriptMs, state] = await this.redis.ratelimit(
      this.key(clientKey),
      ...args,
    );
    this.answeredMs = this.localMs();
    this.recent?.remember(clientKey, state, Number(scriptMs), this.answeredMs);
    return { allowed: allowed === 1, remaining, resetMs, retryAfterMs };
  }

  private fallingBack(err: unknown): void {
    if (this.fellBack) return;
    this.fellBack = true;
    this.options.logger.warn({ err }, "rate limits are this instance's alone until Redis answers");
  }

  private answered(): void {
    if (!this.fellBack) return;
    this.fellBack = false;
    this.options.logger.info("rate limits are shared through Redis again");
  }

  async trackedClients(): Promise<number> {
    let count = 0;
    const match = `${escapeGlob(this.keyPrefix())}*`;
    for await (const keys of this.redis.scanStream({ match, count: 1000 })) count += keys.length;
    return count;
  }

  /** Redis forgets by itself (every write sets the key's TTL to the stale age); the fallback does not. */
  async sweep(): Promise<void> {
    await this.options.fallback?.sweep();
  }

  /**
   * /health asks on every call. An answer from Redis within the looks' freshness bound, on a
   * connection still up, is taken as reachable without a PING of its own: with the looks answered
   * from memory, that PING was the last round trip of every limited `GET /health`
   * (bench/ratelimit.bench.ts). An outage that leaves the socket open shows up to that bound later.
   */
  async ping(): Promise<void> {
    const ageMs = this.localMs() - this.answeredMs;
    if (this.redis.status === "ready" && ageMs >= 0 && ageMs < this.options.peekFreshnessMs) return;
    await this.redis.ping();
    this.answeredMs = this.localMs();
  }

  async close(): Promise<void> {
    this.recent?.clear();
    await this.options.fallback?.close();
    // QUIT needs a live connection; without one there is nothing to flush.
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** Elapsed time for the recent states: the test clock when there is one, else monotonic. */
  private localMs(): number {
    return this.options.clock ? this.options.clock.now().getTime() : performance.now();
  }

  private laneArgs(lanes: readonly Lane[]): number[] {
    if (this.algorithm === "token_bucket") return lanes.flatMap((l) => [l.limit, l.periodMs, l.burst]);
    return [SLOTS, ...lanes.flatMap((l) => [l.limit, l.periodMs])];
  }

  private keyPrefix(): string {
    return `${this.options.prefix}ratelimit:${this.algorithm}:`;
  }

  private key(clientKey: string): string {
    return this.keyPrefix() + clientKey;
  }
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, "\\$&");
}
