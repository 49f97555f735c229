import { ServiceError } from "../errors.js";
import { findOwnVault, stale, untilWritten } from "./access.js";
import type { VaultDeps } from "./deps.js";
import { transition } from "./state.js";
import { burnedEvent, publishVaultEvent } from "./vault-events.js";
import type { VaultChange, VaultRecord } from "./vault-repository.js";

/** Writes one owner-driven change, returning the vault as it is afterwards, or `stale`. */
async function apply(deps: VaultDeps, vault: VaultRecord, set: VaultChange["set"]) {
  const outcome = await deps.repo.update([{ id: vault.id, version: vault.version, set }]);
  if (outcome !== "applied") return stale;
  const { eraseKey: _erased, ...fields } = set;
  return { ...vault, ...fields, version: vault.version + 1 };
}

/**
 * The owner releases an active vault before its deadline, if it was created allowing that. The
 * policy is checked before the state: a vault that never allowed manual release answers 403 in
 * every state.
 */
export function releaseVault(deps: VaultDeps, accountId: string, vaultId: string, reason: string) {
  return untilWritten(async () => {
    const vault = await findOwnVault(deps, accountId, vaultId);
    if (!vault.allowManualRelease) {
      const message = `vault ${vault.id} was created without allow_manual_release`;
      throw new ServiceError("permission_denied", message, "manual_release_not_allowed");
    }
    const now = deps.clock.now();
    const state = transition(vault.id, vault.state, "release");
    const released = await apply(deps, vault, { state, releasedAt: now, releaseReason: reason });
    if (released === stale) return stale;
    publishVaultEvent(deps.events, "vault_released", vault, {
      vaultId: vault.id,
      releasedAt: now.toISOString(),
      reason,
    });
    return released;
  });
}

/** The owner destroys a vault for good, from any state but burned: the key is erased. */
export function burnVault(deps: VaultDeps, accountId: string, vaultId: string, note: string) {
  return untilWritten(async () => {
    const vault = await findOwnVault(deps, accountId, vaultId);
    const now = deps.clock.now();
    const state = transition(vault.id, vault.state, "burn");
    const burned = await apply(deps, vault, {
      state,
      eraseKey: true,
      burnedAt: now,
      burnReason: "owner_request",
      burnNote: note,
    });
    if (burned === stale) return stale;
    burnedEvent(deps.events, burned, now);
    return burned;
  });
}
