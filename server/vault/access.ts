import { notFound } from "../errors.js";
import type { VaultDeps } from "./deps.js";
import { burnUnretrieved, expireDue, isDue } from "./due.js";
import type { VaultRecord } from "./vault-repository.js";

export const vaultNotFound = (id: string) => notFound(`vault ${id} not found`, "vault_not_found");

/**
 * Applies a transition that is already due (deadline passed, retention over) before anyone acts on
 * the vault, so the answer is exact even between two scheduler ticks: a heartbeat one millisecond
 * after the deadline finds the vault expired. The claim is the scheduler's, so the event is still
 * emitted once.
 */
async function settle(deps: VaultDeps, vault: VaultRecord): Promise<VaultRecord> {
  let current = vault;
  // At most two steps: active → expired → burned (a vault due for both after a long downtime).
  for (let step = 0; step < 2 && isDue(deps, current); step++) {
    if (current.state === "active") await expireDue(deps, [current.id]);
    else await burnUnretrieved(deps, [current.id]);
    current = (await deps.repo.find(current.id)) ?? current;
  }
  return current;
}

/**
 * A vault `accountId` may try to retrieve: any account's vault with a recipient key (retrieval is
 * authorized by the recipient's proof, not by ownership), only its own owner-bound vault (the
 * owner's key is what authorizes). 404 otherwise, as for an unknown id.
 */
export async function findRetrievableVault(
  deps: VaultDeps,
  accountId: string,
  id: string,
): Promise<VaultRecord> {
  const vault = await deps.repo.find(id);
  const ownerOnly = vault?.recipientPublicKey === null;
  if (!vault || (ownerOnly && vault.accountId !== accountId)) throw vaultNotFound(id);
  return settle(deps, vault);
}

/** The caller's vault; another account's vault is 404 too, so ids cannot be probed. */
export async function findOwnVault(deps: VaultDeps, accountId: string, id: string): Promise<VaultRecord> {
  const vault = await deps.repo.find(id);
  if (!vault || vault.accountId !== accountId) throw vaultNotFound(id);
  return settle(deps, vault);
}

/** Marks an attempt whose write found the vault changed since it was read. */
export const stale = Symbol("stale");

/**
 * Runs a read-check-write until its conditional write lands. Writes are conditional on the
 * version read, so a concurrent change makes the attempt re-read and re-check instead of
 * overwriting. There is no attempt limit: an attempt is stale only because another write to the
 * same vault committed, so every retry follows progress, and a limit is a number enough parallel
 * writers reach (eight was, at 20 heartbeats on PostgreSQL: a 500 for a correct request).
 */
export async function untilWritten<T>(attempt: () => Promise<T | typeof stale>): Promise<T> {
  for (;;) {
    const result = await attempt();
    if (result !== stale) return result;
  }
}
