import type { Clock } from "../clock.js";
import type { AnyDomainEvent } from "../events/bus.js";
import { publicVaultEvent } from "../vault/vault-events.js";
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
 * The frames of one event. Vault events carry fields only the vault's owner may see (content URIs,
 * free-text reasons), so they have two audiences: the owner's connections, whatever channel
 * matched, and everyone else (publicVaultEvent). Other events have one.
 */
class EventFrames {
  private full?: Buffer;
  /** Null once known that the event has nothing to hide. */
  private redacted?: Buffer | null;

  constructor(
    private readonly event: AnyDomainEvent,
    private readonly at: Date,
  ) {}

  for(conn: WsConnection): Buffer {
    const owner =
      conn.principal.accountId !== null && conn.principal.accountId === this.event.scope.accountId;
    if (owner) return this.fullFrame();
    if (this.redacted === undefined) {
      const visible = publicVaultEvent(this.event);
      this.redacted = visible ? frameOf(visible, this.at) : null;
    }
    return this.redacted ?? this.fullFrame();
  }

  private fullFrame(): Buffer {
    this.full ??= frameOf(this.event, this.at);
    return this.full;
  }
}

const frameOf = (event: AnyDomainEvent, at: Date) =>
  Buffer.from(serverFrame(event.type, event.data as never, at));
