import { findOwnVault } from "./access.js";
import type { VaultDeps } from "./deps.js";
import { burnUnretrieved, expireDue } from "./due.js";
import { checkPageSize } from "./limits.js";
import type { VaultState } from "./state.js";
import type { VaultPage, VaultRecord, VaultStats } from "./vault-repository.js";

export interface PageRequest {
  state?: VaultState;
  limit: number;
  offset: number;
}

/** Applies every transition already due, so a listing or a count never shows a vault past its deadline as active. */
async function settleAll(deps: VaultDeps): Promise<void> {
  await expireDue(deps);
  await burnUnretrieved(deps);
}

export function getVault(deps: VaultDeps, accountId: string, vaultId: string): Promise<VaultRecord> {
  return findOwnVault(deps, accountId, vaultId);
}

/** One page of vaults, newest first: the caller's, or everyone's without `accountId` (the explorer). */
export async function listVaults(deps: VaultDeps, page: PageRequest, accountId?: string): Promise<VaultPage> {
  checkPageSize(deps.settings, page.limit);
  await settleAll(deps);
  return deps.repo.list({ ...page, accountId });
}

/** Exact totals over every vault, with the fees collected in the configured currency. */
export async function vaultStats(deps: VaultDeps): Promise<VaultStats> {
  await settleAll(deps);
  return deps.repo.stats(deps.fees.currency);
}
