import { randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import type { Logger } from "../logger.js";
import { connectRedis, createRedisClient } from "../redis-client.js";
import type { DomainEvent, EventBus, EventType, Listener } from "./bus.js";
import { MemoryEventBus } from "./memory-bus.js";

export interface RedisBusOptions {
  url: string;
  /** `REDIS_PREFIX`: the channel is `<prefix>events`, so deployments sharing a Redis stay apart. */
  prefix: string;
  logger: Logger;
  /** `REDIS_TIMEOUT_MS`: connecting, each publish and ping (server/redis-client.ts). */
  timeoutMs: number;
}

/** What crosses Redis: the event and the instance that published it. */
interface Envelope {
  origin: string;
  event: DomainEvent;
}

/**
 * Events across instances through Redis pub/sub. An event is delivered to this instance's listeners
 * at once, in process, and published on the channel tagged with this instance's id; every instance
 * delivers what arrives from the others and skips its own echo. So each instance delivers each
 * event exactly once, local delivery keeps the in-process bus's order and timing, and a Redis outage
 * costs only the other instances' copies. Pub/sub is at most once: an instance that is disconnected
 * when an event is published never gets it (the WebSocket contract promises no replay), and an event
 * published while Redis does not answer reaches no other instance (publishing fails at once, or
 * after `REDIS_TIMEOUT_MS` when Redis is silent, and is not retried). Both connections reconnect by
 * themselves and the subscriber subscribes again (ioredis's `autoResubscribe`), so delivery resumes
 * without a restart (docs/operations.md "When a dependency fails").
 */
export class RedisEventBus implements EventBus {
  /** Unique per process start, so a restarted instance never mistakes another's events for its own. */
  readonly instanceId = randomUUID();
  private readonly local: MemoryEventBus;
  private readonly channel: string;
  private publishFailing = false;

  private constructor(
    private readonly publisher: Redis,
    private readonly subscriber: Redis,
    private readonly options: RedisBusOptions,
  ) {
    this.local = new MemoryEventBus(options.logger);
    this.channel = `${options.prefix}events`;
  }

  /** Connects and subscribes before resolving, so no event published after start is missed. */
  static async connect(options: RedisBusOptions): Promise<RedisEventBus> {
    // No offline queue (server/redis-client.ts): while Redis is away, publishing fails at once
    // instead of piling up events.
    const { url, timeoutMs, logger } = options;
    const publisher = createRedisClient({ url, timeoutMs, logger, purpose: "event bus" });
    const subscriber = createRedisClient({ url, timeoutMs, logger, purpose: "event bus subscriber" });
    const bus = new RedisEventBus(publisher, subscriber, options);
    try {
      await Promise.all([connectRedis(publisher, "events"), connectRedis(subscriber, "events")]);
      subscriber.on("message", (_channel: string, message: string) => bus.receive(message));
      await subscriber.subscribe(bus.channel);
    } catch (err) {
      publisher.disconnect();
      subscriber.disconnect();
      throw err;
    }
    return bus;
  }

  publish<T extends EventType>(event: DomainEvent<T>): void {
    this.local.publish(event);
    const envelope: Envelope = { origin: this.instanceId, event: event as unknown as DomainEvent };
    this.publisher.publish(this.channel, JSON.stringify(envelope)).then(
      () => this.publishSucceeded(),
      (err) => this.publishFailed(err, event.type),
    );
  }

  subscribe(listener: Listener): () => void {
    return this.local.subscribe(listener);
  }

  /**
   * The subscription must be connected (or other instances' events are lost) and both connections
   * must answer. The subscriber's PING is also what finds a subscription that went silent: it
   * sends nothing else, so only a reply it owes lets `socketTimeout` close and resubscribe it.
   */
  async ping(): Promise<void> {
    if (this.subscriber.status !== "ready") throw new Error("the event subscription is not connected");
    await Promise.all([this.publisher.ping(), this.subscriber.ping()]);
  }

  async close(): Promise<void> {
    // QUIT needs a live connection; without one there is nothing to flush.
    await Promise.all(
      [this.publisher, this.subscriber].map((redis) => redis.quit().catch(() => redis.disconnect())),
    );
    await this.local.close();
  }

  private receive(message: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(message) as Envelope;
    } catch (err) {
      this.options.logger.warn({ err, channel: this.channel }, "malformed event on the bus");
      return;
    }
    if (envelope.origin !== this.instanceId) this.local.publish(envelope.event);
  }

  // One warning per outage rather than one per event.
  private publishFailed(err: Error, type: EventType): void {
    if (this.publishFailing) return;
    this.publishFailing = true;
    this.options.logger.warn({ err, type }, "events are not reaching other instances (Redis publish failed)");
  }

  private publishSucceeded(): void {
    if (!this.publishFailing) return;
    this.publishFailing = false;
    this.options.logger.info("events reach other instances again");
  }
}
