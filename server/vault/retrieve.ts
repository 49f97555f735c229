import { ServiceError } from "../errors.js";
import { findVault, stale, untilWritten } from "./access.js";
import type { VaultDeps } from "./deps.js";
import { checkProof } from "./proof.js";
import { transition } from "./state.js";

export interface RetrievedKey {
  vaultId: string;
  encryptedKey: string;
  /** When the owner released it, or its deadline when it expired. */
  releasedAt: Date;
}

/**
 * Hands the escrowed key of a released or expired vault to whoever proves to be its recipient
 * (any account: the recipient is rarely the owner). The state is checked before the proof, so a
 * proof is not spent on a vault that cannot answer; the proof is recorded as used, and the
 * first retrieval noted (it stops the retention burn), in the same transaction that reads the key.
 */
export function retrieveKey(
  deps: VaultDeps,
  vaultId: string,
  proof: { proofOfIdentity: string; signedAt: string },
): Promise<RetrievedKey> {
  return untilWritten(async () => {
    const vault = await findVault(deps, vaultId);
    const state = transition(vault.id, vault.state, "retrieve");
    const now = deps.clock.now();
    const used = checkProof({
      vaultId: vault.id,
      recipientPublicKey: vault.recipientPublicKey,
      proof: proof.proofOfIdentity,
      signedAt: proof.signedAt,
      now,
    });
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
