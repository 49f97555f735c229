import type { ManualClock } from "../../server/clock.js";
import { createLogger } from "../../server/logger.js";
import type { AlgorithmName } from "../../server/ratelimit/algorithm.js";
import { RedisStore } from "../../server/ratelimit/redis-store.js";
import { deleteKeys, redisUrl, uniquePrefix } from "../helpers/redis.js";

export const HOUR = 3_600_000;
const logger = createLogger({ LOG_LEVEL: "silent" });
const prefixes: string[] = [];

export interface ConnectOptions {
  url?: string;
  prefix?: string;
  clock?: ManualClock;
  algorithm?: AlgorithmName;
  /** The production default (1000 ms) unless a test says otherwise. */
  peekFreshnessMs?: number;
}

/** A Redis store on its own key prefix (unless shared on purpose), with an hour's stale age. */
export function connect(options: ConnectOptions = {}): Promise<RedisStore> {
  const prefix = options.prefix ?? uniquePrefix();
  prefixes.push(prefix);
  return RedisStore.connect({
    url: options.url ?? redisUrl,
    prefix,
    clock: options.clock,
    algorithm: options.algorithm ?? "token_bucket",
    staleMs: HOUR,
    logger,
    peekFreshnessMs: options.peekFreshnessMs ?? 1000,
    maxClients: 10_000,
    timeoutMs: 1000,
  });
}

/** For afterAll: leaves the shared Redis as the tests found it. */
export async function deleteConnectedKeys(): Promise<void> {
  for (const prefix of prefixes.splice(0)) await deleteKeys(redisUrl, prefix);
}
