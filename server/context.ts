import type { Authenticator } from "./auth/authenticator.js";
import type { Clock } from "./clock.js";
import type { Config } from "./config.js";
import type { EventBus } from "./events/bus.js";
import type { ServiceKeys } from "./keys/service-keys.js";
import type { Logger } from "./logger.js";
import type { Metrics } from "./metrics/metrics.js";
import type { RateLimiter } from "./ratelimit/limiter.js";
import type { Store } from "./store/store.js";

/** What every domain service and transport is built from; assembled once in build(). */
export interface AppContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  store: Store;
  events: EventBus;
  /** Resolves callers to principals (API keys, client addresses) for every transport. */
  auth: Authenticator;
  /** The service's signing key and at-rest encryption key (server/keys/); never logged. */
  keys: ServiceKeys;
  /** Per-client limits for every transport; absent when `RATE_LIMIT_ENABLED` is false. */
  rateLimiter?: RateLimiter;
  /** Prometheus series every transport and domain records into (`GET /metrics`). */
  metrics: Metrics;
}
