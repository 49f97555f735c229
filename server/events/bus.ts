import type { ServerMessageOf } from "../../gen/asyncapi/index.js";

/** Domain events: the WebSocket event types of part 6 that domains emit (replies are not events). */
export type EventType =
  | "stamp_created"
  | "stamp_confirmed"
  | "stamp_anchored"
  | "batch_progress"
  | "vault_created"
  | "vault_heartbeat"
  | "vault_released"
  | "vault_burned"
  | "vault_expired"
  | "vault_deadline_warning";

export type EventData<T extends EventType> = ServerMessageOf<T>["data"];

/** Routing facts used to match channel filters; never sent to clients. */
export interface EventScope {
  /** The owning account: user_stamps / user_vaults deliver only to it. Null for anonymous stamps. */
  accountId?: string | null;
  stampId?: string;
  vaultId?: string;
  batchId?: string;
  /** Stamp metadata, for gRPC WatchStamps filters. */
  metadata?: Record<string, string>;
}

export interface DomainEvent<T extends EventType = EventType> {
  type: T;
  data: EventData<T>;
  scope: EventScope;
}

export type AnyDomainEvent = { [T in EventType]: DomainEvent<T> }[EventType];

export type Listener = (event: AnyDomainEvent) => void;

/**
 * One bus that REST, gRPC, WebSocket and the schedulers publish to. The in-process bus is the
 * default; a Redis pub/sub bus implements the same interface so events cross instances.
 */
export interface EventBus {
  publish<T extends EventType>(event: DomainEvent<T>): void;
  /** Returns the function that removes the listener. */
  subscribe(listener: Listener): () => void;
  /** Resolves when the bus can reach other instances (always, for the in-process bus). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
