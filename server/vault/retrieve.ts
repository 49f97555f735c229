import { ServiceError } from "../errors.js";
import { findRetrievableVault, stale, untilWritten } from "./access.js";
import type { VaultDeps } from "./deps.js";
import { checkProof, type ProofOfIdentity } from "./proof.js";
import { transition } from "./state.js";

export interface RetrievedKey {
  vaultId: string;
  encryptedKey: string;
  /** When the owner released it, or its deadline when it expired. */
  releasedAt: Date;
}

/**
 * Hands the escrowed key of a released or expired vault to whoever proves to be its recipient:
 * for a vault with a recipient key, any account holding a fresh signature by it (the recipient is
 * rarely the owner); for an owner-bound vault, its owner's account with a fresh token. The state
 * is checked before the proof, so a proof is not spent on a vault that cannot answer; the proof
 * is recorded as used, and the first retrieval noted (it stops the retention burn), in the same
 * transaction that reads the key.
 */
export function retrieveKey(
  deps: VaultDeps,
  accountId: string,
  vaultId: string,
  proof: ProofOfIdentity,
): Promise<RetrievedKey> {
  return untilWritten(async () => {
    const vault = await findRetrievableVault(deps, accountId, vaultId);
    const state = transition(vault.id, vault.state, "retrieve");
    const now = deps.clock.now();
    const used = checkProof(vault, proof, now);
    const change = {
      id: vault.id,
      version: vault.version,
      set: { state, retrievedAt: vault.retrievedAt ?? now },
    };
    const result = await deps.repo.retrieve(change, used);
    if (result.outcome === "stale") return stale;
    if (result.outcome === "proof_used") {
      throw new ServiceError(
        "permission_denied",
        "this proof_of_identity was already used",
        "invalid_proof_of_identity",
      );
    }
    return { vaultId: vault.id, encryptedKey: result.encryptedKey, releasedAt: vault.releasedAt! };
  });
}
