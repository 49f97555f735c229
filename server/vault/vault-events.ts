import type { AnyDomainEvent, EventBus, EventData } from "../events/bus.js";
import type { VaultRecord } from "./vault-repository.js";

type VaultEventType =
  | "vault_created"
  | "vault_heartbeat"
  | "vault_released"
  | "vault_expired"
  | "vault_burned"
  | "vault_deadline_warning";

/** Publishes a vault event scoped to the vault and its owner (user_vaults delivers only to the owner). */
export function publishVaultEvent<T extends VaultEventType>(
  events: EventBus,
  type: T,
  vault: Pick<VaultRecord, "id" | "accountId">,
  data: EventData<T>,
): void {
  events.publish({ type, data, scope: { accountId: vault.accountId, vaultId: vault.id } });
}

const hourMs = 3_600_000;

export function expiredEvent(events: EventBus, vault: VaultRecord, now: Date): void {
  publishVaultEvent(events, "vault_expired", vault, {
    vaultId: vault.id,
    expiredAt: now.toISOString(),
    deadline: vault.deadline.toISOString(),
  });
}

/** `reason` is the owner's text for an owner's burn, else the cause (publicVaultEvent hides the text). */
export function burnedEvent(events: EventBus, vault: VaultRecord, at: Date): void {
  const cause = vault.burnReason ?? "owner_request";
  publishVaultEvent(events, "vault_burned", vault, {
    vaultId: vault.id,
    burnedAt: at.toISOString(),
    reason: cause === "owner_request" && vault.burnNote ? vault.burnNote : cause,
    cause,
  });
}

export function warningEvent(events: EventBus, vault: VaultRecord, now: Date): void {
  publishVaultEvent(events, "vault_deadline_warning", vault, {
    vaultId: vault.id,
    deadline: vault.deadline.toISOString(),
    hoursRemaining: Math.floor((vault.deadline.getTime() - now.getTime()) / hourMs),
    state: "active",
  });
}

/**
 * An event as every connection but the vault owner's receives it (SECURITY.md, "Event privacy"):
 * ids, states, times and counts are public like the explorer, what the owner wrote or chose is not.
 * Content URIs are left out and a free-text reason becomes its cause. Undefined when the event
 * carries nothing owner-only.
 */
export function publicVaultEvent(event: AnyDomainEvent): AnyDomainEvent | undefined {
  switch (event.type) {
    case "vault_created": {
      if (event.data.contentUris === undefined) return undefined;
      const { contentUris: _, ...data } = event.data;
      return { ...event, data };
    }
    case "vault_released":
      return { ...event, data: { ...event.data, reason: "owner_request" } };
    case "vault_burned":
      return { ...event, data: { ...event.data, reason: event.data.cause } };
    default:
      return undefined;
  }
}
