import {
  type SubscriptionChannel,
  type SubscriptionFilters,
  subscriptionChannels,
} from "../../gen/asyncapi/index.js";
import type { AnyDomainEvent, EventScope } from "../events/bus.js";
import { WsErrorReply } from "./ws-error.js";

type FilterKey = keyof SubscriptionFilters;

// The routing fact of EventScope that a channel filter is compared with.
const scopeField: Record<FilterKey, "stampId" | "batchId" | "vaultId"> = {
  stamp_id: "stampId",
  batch_id: "batchId",
  vault_id: "vaultId",
};

/** The seven logical channels, in the spec's order. */
export const channels = Object.keys(subscriptionChannels) as SubscriptionChannel[];

/** The filter key a channel requires (stamp_id, batch_id, vault_id), or null for channels without one. */
export function filterKeyOf(channel: SubscriptionChannel): FilterKey | null {
  return subscriptionChannels[channel].filter;
}

/** user_stamps and user_vaults: they need an account and deliver only that account's events. */
export function needsAccount(channel: SubscriptionChannel): boolean {
  return subscriptionChannels[channel].authentication === "required";
}

/**
 * The id a subscription follows (null for channels without a filter), after checking that the
 * filters are exactly the one the channel takes. The schema already checked the id's format.
 */
export function filterTarget(channel: SubscriptionChannel, filters: SubscriptionFilters = {}): string | null {
  const key = filterKeyOf(channel);
  const given = Object.keys(filters) as FilterKey[];
  const unexpected = given.filter((k) => k !== key);
  if (unexpected.length > 0) {
    throw new WsErrorReply("invalid_filter", `${channel} takes ${key ? `only ${key}` : "no filters"}`, [
      { path: `/data/filters/${unexpected[0]}`, message: "not a filter of this channel" },
    ]);
  }
  if (key === null) return null;
  const id = filters[key];
  if (id === undefined) {
    throw new WsErrorReply("invalid_filter", `${channel} needs the filter ${key}`, [
      { path: "/data/filters", message: `must have required property '${key}'` },
    ]);
  }
  return id;
}

/**
 * The key of a subscription in the fan-out index. user_* subscriptions are keyed by the
 * connection's account so an event reaches only its owner's connections.
 */
export function indexKey(
  channel: SubscriptionChannel,
  target: string | null,
  accountId: string | null,
): string {
  if (needsAccount(channel)) return `${channel}:${accountId}`;
  return target === null ? channel : `${channel}:${target}`;
}

// Which channels deliver each event type, from x-subscription-channels of specs/asyncapi.yaml.
const channelsByEvent = new Map<string, SubscriptionChannel[]>();
for (const channel of channels) {
  for (const type of subscriptionChannels[channel].events) {
    channelsByEvent.set(type, [...(channelsByEvent.get(type) ?? []), channel]);
  }
}

/** The index keys whose subscribers receive an event, from its type and routing scope. */
export function indexKeysOf(event: AnyDomainEvent): string[] {
  const keys: string[] = [];
  for (const channel of channelsByEvent.get(event.type) ?? []) {
    const key = eventKey(channel, event.scope);
    if (key !== null) keys.push(key);
  }
  return keys;
}

function eventKey(channel: SubscriptionChannel, scope: EventScope): string | null {
  if (needsAccount(channel)) return scope.accountId ? indexKey(channel, null, scope.accountId) : null;
  const filter = filterKeyOf(channel);
  if (filter === null) return channel;
  const id = scope[scopeField[filter]];
  return id ? indexKey(channel, id, null) : null;
}

/** Whether subscribers of `channel` receive events of `type` at all. */
export function channelDelivers(channel: SubscriptionChannel, type: string): boolean {
  return (subscriptionChannels[channel].events as readonly string[]).includes(type);
}
