import { Redis } from "ioredis";
import type { Logger } from "./logger.js";

export interface RedisClientOptions {
  url: string;
  /** `REDIS_TIMEOUT_MS`: connecting, each command, and a socket owing a reply each get this long. */
  timeoutMs: number;
  logger: Logger;
  /** Names the client in its log lines ("rate-limit", "event bus"). */
  purpose: string;
}

/** How long a reconnect waits at most: Redis back, the service uses it again within this. */
const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * A Redis connection that fails fast instead of waiting (docs/operations.md "When a dependency
 * fails"): no offline queue (a command while disconnected fails at once), no command retried on
 * reconnect (a charge or an event is never applied twice), a deadline on connecting and on each
 * command, and `socketTimeout`, which closes a socket that owes a reply and hears nothing: a
 * stalled Redis turns into a reconnecting one, whose commands fail at once rather than each after
 * its own deadline. It reconnects by itself, forever. Connects on `connect()`.
 */
export function createRedisClient({ url, timeoutMs, logger, purpose }: RedisClientOptions): Redis {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
  });
  // An 'error' without a listener ends the process; each failed attempt of an outage lands here.
  redis.on("error", (err) => logger.warn({ err }, `${purpose} Redis connection failed`));
  return redis;
}
