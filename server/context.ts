import type { Clock } from "./clock.js";
import type { Config } from "./config.js";
import type { EventBus } from "./events/bus.js";
import type { Logger } from "./logger.js";
import type { Store } from "./store/store.js";

/** What every domain service and transport is built from; assembled once in build(). */
export interface AppContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  store: Store;
  events: EventBus;
}
