import type {
  SubscribeData,
  SubscribedData,
  UnsubscribeData,
  UnsubscribedData,
} from "../../gen/asyncapi/index.js";
import { filterTarget, indexKey, needsAccount } from "./channels.js";
import type { WsConnection } from "./connection.js";
import type { SubscriptionIndex } from "./subscription-index.js";
import { WsErrorReply } from "./ws-error.js";

/** subscribe and unsubscribe: a connection's own list of subscriptions, mirrored in the fan-out index. */
export class Subscriptions {
  constructor(
    private readonly index: SubscriptionIndex<WsConnection>,
    private readonly maxPerConnection: number,
  ) {}

  /** Idempotent: the same channel and filters again change nothing. */
  subscribe(conn: WsConnection, { channel, filters = {} }: SubscribeData): SubscribedData {
    const target = filterTarget(channel, filters);
    const { accountId } = conn.principal;
    if (needsAccount(channel) && accountId === null) {
      throw new WsErrorReply("unauthenticated", `${channel} needs an authenticated connection`);
    }
    const key = target === null ? channel : `${channel}:${target}`;
    if (conn.subscriptions.has(key)) return { channel, filters };
    if (conn.subscriptions.size >= this.maxPerConnection) {
      throw new WsErrorReply(
        "too_many_subscriptions",
        `a connection may hold at most ${this.maxPerConnection} subscriptions`,
      );
    }
    const subscription = { channel, indexKey: indexKey(channel, target, accountId) };
    conn.subscriptions.set(key, subscription);
    this.index.add(subscription.indexKey, channel, conn);
    return { channel, filters };
  }

  /** Without filters (or with `{}`) every subscription on the channel goes; with filters, the one that has them. */
  unsubscribe(conn: WsConnection, { channel, filters = {} }: UnsubscribeData): UnsubscribedData {
    const whole = Object.keys(filters).length === 0;
    const target = whole ? null : filterTarget(channel, filters);
    let removed = 0;
    for (const [key, subscription] of conn.subscriptions) {
      if (subscription.channel !== channel) continue;
      if (!whole && key !== `${channel}:${target}`) continue;
      this.drop(conn, key);
      removed++;
    }
    return { channel, filters, removed };
  }

  /** When the connection closes. */
  dropAll(conn: WsConnection): void {
    for (const key of [...conn.subscriptions.keys()]) this.drop(conn, key);
  }

  private drop(conn: WsConnection, key: string): void {
    const subscription = conn.subscriptions.get(key)!;
    conn.subscriptions.delete(key);
    this.index.remove(subscription.indexKey, subscription.channel, conn);
  }
}
