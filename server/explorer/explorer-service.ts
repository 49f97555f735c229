import type { VaultDeps } from "../vault/deps.js";
import { listVaults, type PageRequest, vaultStats } from "../vault/queries.js";
import type { VaultPage, VaultStats } from "../vault/vault-repository.js";

/**
 * The public, read-only view of the vaults of every account. It returns whole records; the
 * transport shows only id, state, times and heartbeat count (never keys, owners, URIs or metadata).
 */
export class ExplorerService {
  constructor(private readonly deps: VaultDeps) {}

  list(page: PageRequest): Promise<VaultPage> {
    return listVaults(this.deps, page);
  }

  stats(): Promise<VaultStats> {
    return vaultStats(this.deps);
  }
}
