import { readFileSync } from "node:fs";
import { Redis } from "ioredis";
import type { Clock } from "../clock.js";
import type { Logger } from "../logger.js";
import type { AlgorithmName, Outcome } from "./algorithm.js";
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
}

type Reply = [allowed: number, remaining: number, resetMs: number, retryAfterMs: number];

interface LimiterCommands {
  ratelimit(key: string, ...args: (string | number)[]): Promise<Reply>;
}

/**
 * Limiter state in Redis, shared by every instance. Each request is one round trip: one Lua script
 * reads, decides and writes atomically. ioredis sends it as EVALSHA and falls back to EVAL on
 * NOSCRIPT, so a Redis restart or SCRIPT FLUSH costs one extra round trip, not an error. The clock
 * is Redis's own `TIME`, one clock for all instances. Keys expire after the stale age.
 */
export class RedisStore implements LimiterStore {
  readonly kind = "redis";
  readonly algorithm: AlgorithmName;

  private constructor(
    private readonly redis: Redis & LimiterCommands,
    private readonly options: RedisStoreOptions,
  ) {
    this.algorithm = options.algorithm;
  }

  /** Connects first, so a wrong `REDIS_URL` stops the start rather than the first request. */
  static async connect(options: RedisStoreOptions): Promise<RedisStore> {
    const redis = new Redis(options.url, {
      lazyConnect: true,
      // Fail fast while Redis is away: the limiter lets requests through rather than queue them.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: 1000,
    });
    // ioredis keeps reconnecting in the background; each failed attempt lands here, not on stderr.
    redis.on("error", (err) => options.logger.warn({ err }, "rate-limit Redis connection failed"));
    redis.defineCommand("ratelimit", { numberOfKeys: 1, lua: scripts[options.algorithm] });
    await redis.connect().catch((err) => {
      redis.disconnect();
      throw new Error(`cannot reach REDIS_URL for rate limiting: ${err.message}`);
    });
    return new RedisStore(redis as Redis & LimiterCommands, options);
  }

  async consume(clientKey: string, lanes: Lane[], cost: number): Promise<Outcome> {
    const now = this.options.clock ? this.options.clock.now().getTime() : "";
    const args = [now, cost, this.options.staleMs, ...this.laneArgs(lanes)];
    const [allowed, remaining, resetMs, retryAfterMs] = await this.redis.ratelimit(
      this.key(clientKey),
      ...args,
    );
    return { allowed: allowed === 1, remaining, resetMs, retryAfterMs };
  }

  async trackedClients(): Promise<number> {
    let count = 0;
    const match = `${escapeGlob(this.keyPrefix())}*`;
    for await (const keys of this.redis.scanStream({ match, count: 1000 })) count += keys.length;
    return count;
  }

  async sweep(): Promise<void> {
    // Nothing to do: every write sets the key's TTL to the stale age.
  }

  async ping(): Promise<void> {
    await this.redis.ping();
  }

  async close(): Promise<void> {
    // QUIT needs a live connection; without one there is nothing to flush.
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private laneArgs(lanes: Lane[]): number[] {
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
