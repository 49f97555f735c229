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

/**
 * Connects `redis`, or fails saying which use (`purpose`) could not reach REDIS_URL and why, with
 * the socket's error code: main.ts prints such an error as one line, not a stack. Disconnects on
 * failure, so the client stops reconnecting.
 */
export async function connectRedis(redis: Redis, purpose: string): Promise<void> {
  // ioredis rejects connect() with "Connection is closed."; the socket's own error came just before.
  let cause: NodeJS.ErrnoException | undefined;
  const remember = (err: NodeJS.ErrnoException) => {
    cause = err;
  };
  redis.on("error", remember);
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    const reason = cause ?? (err as NodeJS.ErrnoException);
    const failure = new Error(`cannot reach REDIS_URL for ${purpose}: ${reason.message}`, { cause: reason });
    throw Object.assign(failure, { code: reason.code });
  } finally {
    redis.off("error", remember);
  }
}
