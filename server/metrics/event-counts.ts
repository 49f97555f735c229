import type { EventBus } from "../events/bus.js";
import type { Metrics } from "./metrics.js";

/**
 * The bus with the vault events this instance publishes counted (heartbeats, expiries). Counted
 * at publish, not on delivery: with a Redis bus every instance also receives the others' events,
 * and counting those would count each event once per instance.
 */
export function countPublishedEvents(bus: EventBus, metrics: Metrics): EventBus {
  return {
    publish(event) {
      if (event.type === "vault_heartbeat") metrics.vaultHeartbeats.inc();
      else if (event.type === "vault_expired") metrics.vaultExpiries.inc();
      bus.publish(event);
    },
    subscribe: (listener) => bus.subscribe(listener),
    ping: () => bus.ping(),
    close: () => bus.close(),
  };
}
