import type { Logger } from "../logger.js";
import type { AnyDomainEvent, DomainEvent, EventBus, EventType, Listener } from "./bus.js";

/**
 * Delivers synchronously to every listener in subscription order. A throwing listener is logged
 * and skipped so one bad subscriber cannot starve the others.
 */
export class MemoryEventBus implements EventBus {
  private readonly listeners = new Set<Listener>();

  constructor(private readonly logger?: Logger) {}

  publish<T extends EventType>(event: DomainEvent<T>): void {
    for (const listener of this.listeners) {
      try {
        listener(event as unknown as AnyDomainEvent);
      } catch (err) {
        this.logger?.error({ err, type: event.type }, "event listener failed");
      }
    }
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async ping(): Promise<void> {}

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
