import { type CreateVaultInput, createVault } from "./create.js";
import type { VaultDeps } from "./deps.js";
import type { FeeSchedule } from "./fees/schedule.js";
import { type CreateGroupInput, createGroup } from "./groups.js";
import { batchHeartbeat, heartbeat } from "./heartbeat.js";
import { addMirror } from "./mirrors.js";
import type { ProofOfIdentity } from "./proof.js";
import { getVault, listVaults, type PageRequest } from "./queries.js";
import { burnVault, releaseVault } from "./release.js";
import { retrieveKey } from "./retrieve.js";

/**
 * The vault's operations for transports. Each takes the caller's account id explicitly (the
 * transport authenticated it); every operation but `retrieve` of a vault with a recipient key acts
 * only on the caller's vaults.
 */
export class VaultService {
  constructor(private readonly deps: VaultDeps) {}

  get fees(): FeeSchedule {
    return this.deps.fees;
  }

  create(accountId: string, input: CreateVaultInput) {
    return createVault(this.deps, accountId, input);
  }

  get(accountId: string, vaultId: string) {
    return getVault(this.deps, accountId, vaultId);
  }

  list(accountId: string, page: PageRequest) {
    return listVaults(this.deps, page, accountId);
  }

  heartbeat(accountId: string, vaultId: string, feeReceipt: string) {
    return heartbeat(this.deps, accountId, vaultId, feeReceipt);
  }

  batchHeartbeat(accountId: string, vaultIds: string[], feeReceipt: string) {
    return batchHeartbeat(this.deps, accountId, vaultIds, feeReceipt);
  }

  release(accountId: string, vaultId: string, reason: string) {
    return releaseVault(this.deps, accountId, vaultId, reason);
  }

  burn(accountId: string, vaultId: string, reason: string) {
    return burnVault(this.deps, accountId, vaultId, reason);
  }

  /** Any account with the recipient's proof; an owner-bound vault only its owner's account. */
  retrieve(accountId: string, vaultId: string, proof: ProofOfIdentity) {
    return retrieveKey(this.deps, accountId, vaultId, proof);
  }

  addMirror(accountId: string, vaultId: string, uri: string) {
    return addMirror(this.deps, accountId, vaultId, uri);
  }

  createGroup(accountId: string, input: CreateGroupInput) {
    return createGroup(this.deps, accountId, input);
  }
}
