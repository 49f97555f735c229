import type { EventBus, EventData } from "../events/bus.js";
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

export function burnedEvent(events: EventBus, vault: VaultRecord, at: Date): void {
  publishVaultEvent(events, "vault_burned", vault, {
    vaultId: vault.id,
    burnedAt: at.toISOString(),
    reason: vault.burnReason ?? "owner_request",
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
