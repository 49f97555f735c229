import type { ServerMessage } from "../../gen/asyncapi/index.js";
import type { AnyDomainEvent, DomainEvent, EventBus, EventType } from "../../server/events/bus.js";

// Fixed ids in the spec's formats: two stamps, two vaults, one batch.
export const ids = {
  stampA: "stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7AA",
  stampB: "stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7BB",
  vaultA: "vlt_01JD3M6ZK8Q2V7W9X4Y5Z6A7AA",
  vaultB: "vlt_01JD3M6ZK8Q2V7W9X4Y5Z6A7BB",
  batch: "bat_01JD3M6ZK8Q2V7W9X4Y5Z6A7AA",
};

const at = "2026-01-01T00:00:00.000Z";
const hash = `sha256:${"ab".repeat(32)}`;

function event<T extends EventType>(type: T, data: DomainEvent<T>["data"], scope: DomainEvent<T>["scope"]) {
  return { type, data, scope } as unknown as AnyDomainEvent;
}

/** One event of each stamp type for `stampId`, owned by `accountId`, as the stamps domain publishes them. */
export function stampEvents(stampId: string, accountId: string | null): AnyDomainEvent[] {
  const scope = { accountId, stampId };
  return [
    event("stamp_created", { id: stampId, contentHash: hash, timestamp: at, metadata: {} }, scope),
    event(
      "stamp_confirmed",
      { stampId, proof: { primeSignature: "c2ln", merkleRoot: "ab".repeat(32) } },
      scope,
    ),
    event("stamp_anchored", { stampId, chain: "log", txHash: "1", timestamp: at }, scope),
  ];
}

/** One event of each vault type for `vaultId`, owned by `accountId`, as the vault scheduler publishes them. */
export function vaultEvents(vaultId: string, accountId: string): AnyDomainEvent[] {
  const scope = { accountId, vaultId };
  return [
    event("vault_created", { vaultId, state: "active", deadline: at, contentUris: ["s3://b/k"] }, scope),
    event("vault_heartbeat", { vaultId, heartbeatAt: at, nextDeadline: at, heartbeatCount: 1 }, scope),
    event("vault_released", { vaultId, releasedAt: at, reason: "manual" }, scope),
    event("vault_expired", { vaultId, expiredAt: at, deadline: at }, scope),
    event("vault_burned", { vaultId, burnedAt: at, reason: "rotated", cause: "owner_request" }, scope),
    event("vault_deadline_warning", { vaultId, deadline: at, hoursRemaining: 24, state: "active" }, scope),
  ];
}

export function batchProgress(batchId: string): AnyDomainEvent {
  return event("batch_progress", { batchId, processed: 1, total: 2, percentage: 50 }, { batchId });
}

/** Publishes on the bus as a domain would. */
export function publish(bus: EventBus, events: AnyDomainEvent[]): void {
  for (const e of events) bus.publish(e as DomainEvent);
}

/** `type:id` of a received event, for compact expectations. */
export function label(message: ServerMessage): string {
  const d = message.data as Record<string, unknown>;
  return `${message.type}:${d.stampId ?? d.id ?? d.vaultId ?? d.batchId}`;
}
