import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { EventBus } from "./bus.js";
import { MemoryEventBus } from "./memory-bus.js";

/**
 * Redis pub/sub when `REDIS_URL` is set, so events reach every instance; in process otherwise.
 * The Redis client is imported only then.
 */
export async function openEventBus(
  config: Pick<Config, "REDIS_URL" | "REDIS_PREFIX" | "REDIS_TIMEOUT_MS">,
  logger: Logger,
): Promise<EventBus> {
  if (!config.REDIS_URL) return new MemoryEventBus(logger);
  const { RedisEventBus } = await import("./redis-bus.js");
  return RedisEventBus.connect({
    url: config.REDIS_URL,
    prefix: config.REDIS_PREFIX,
    logger,
    timeoutMs: config.REDIS_TIMEOUT_MS,
  });
}
