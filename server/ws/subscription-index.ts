import type { SubscriptionChannel } from "../../gen/asyncapi/index.js";
import { channels } from "./channels.js";

/** The part of a connection the index needs: the fan-out hands events to these. */
export interface Subscriber {
  /** The last fan-out that reached this subscriber; a fan-out over several keys delivers once. */
  lastFanout: number;
}

/**
 * Subscribers by index key (`all_stamps`, `stamp:<id>`, `user_vaults:<account>`, …), so an event
 * reaches its subscribers in O(matching subscribers), whatever the number of connections.
 */
export class SubscriptionIndex<S extends Subscriber> {
  private readonly byKey = new Map<string, Set<S>>();
  private readonly perChannel = new Map<SubscriptionChannel, number>(channels.map((c) => [c, 0]));

  add(key: string, channel: SubscriptionChannel, subscriber: S): void {
    let set = this.byKey.get(key);
    if (!set) {
      set = new Set();
      this.byKey.set(key, set);
    }
    set.add(subscriber);
    this.perChannel.set(channel, this.perChannel.get(channel)! + 1);
  }

  remove(key: string, channel: SubscriptionChannel, subscriber: S): void {
    const set = this.byKey.get(key);
    if (!set?.delete(subscriber)) return;
    // Per-id keys (one stamp, one vault) come and go; empty sets must not pile up.
    if (set.size === 0) this.byKey.delete(key);
    this.perChannel.set(channel, this.perChannel.get(channel)! - 1);
  }

  subscribers(key: string): ReadonlySet<S> | undefined {
    return this.byKey.get(key);
  }

  /** Active subscriptions per channel (GET /ws/stats). */
  counts(): Record<SubscriptionChannel, number> {
    return Object.fromEntries(this.perChannel) as Record<SubscriptionChannel, number>;
  }
}
