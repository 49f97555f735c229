import type { Clock } from "../clock.js";
import type { AnyDomainEvent } from "../events/bus.js";
import { indexKeysOf } from "./channels.js";
import type { WsConnection } from "./connection.js";
import { serverFrame } from "./frames.js";
import type { SubscriptionIndex } from "./subscription-index.js";

/**
 * Hands each bus event to the connections subscribed to it: the index gives the matching
 * subscribers directly, each connection gets the event once however many of its subscriptions
 * match, and the frame is serialized (and UTF-8 encoded) once per audience, not per connection.
 */
export class Fanout {
  private round = 0;

  constructor(
    private readonly index: SubscriptionIndex<WsConnection>,
    private readonly clock: Clock,
  ) {}

  publish(event: AnyDomainEvent): void {
    const groups: ReadonlySet<WsConnection>[] = [];
    for (const key of indexKeysOf(event)) {
      const group = this.index.subscribers(key);
      if (group) groups.push(group);
    }
    if (groups.length === 0) return;
    const frames = new EventFrames(event, this.clock.now());
    const round = ++this.round;
    for (const group of groups) {
      for (const conn of group) {
        if (conn.lastFanout === round) continue;
        conn.lastFanout = round;
        conn.deliver(event, frames.for(conn));
      }
    }
  }
}

/**
 * The frames of one event. vault_created carries contentUris only for the vault's owner (the
 * public explorer does not show them either), so it has two audiences; every other event one.
 */
class EventFrames {
  private full?: Buffer;
  private redacted?: Buffer;

  constructor(
    private readonly event: AnyDomainEvent,
    private readonly at: Date,
  ) {}

  for(conn: WsConnection): Buffer {
    if (this.event.type !== "vault_created" || this.event.data.contentUris === undefined)
      return this.fullFrame();
    const owner =
      conn.principal.accountId !== null && conn.principal.accountId === this.event.scope.accountId;
    if (owner) return this.fullFrame();
    const { contentUris: _, ...data } = this.event.data;
    this.redacted ??= Buffer.from(serverFrame("vault_created", data, this.at));
    return this.redacted;
  }

  private fullFrame(): Buffer {
    this.full ??= Buffer.from(serverFrame(this.event.type, this.event.data as never, this.at));
    return this.full;
  }
}
