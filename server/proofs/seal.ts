import { bytesToHex } from "@noble/hashes/utils.js";
import { monotonicFactory } from "ulid";
import { proofBatchSigningMessage } from "../../core/proof-batch-signature.js";
import { merkle } from "../fingerprints/merkle.js";
import type { Signer } from "../keys/ed25519.js";
import type { AnchorType } from "../stamps/stamp-settings.js";
import type { ClaimedStamp, SealedBatch } from "./proof-repository.js";

const nextUlid = monotonicFactory();

/** `bat_` and a ULID of the sealing time (docs/design.md, Identifiers). */
export const newMerkleBatchId = (at: Date): string => `bat_${nextUlid(at.getTime())}`;

/**
 * Builds and signs the batch of the claimed stamps: leaves in stamp id order, each the RFC 6962
 * leaf hash of the stamp document in canonical form (core/stamp-leaf.ts), computed when
 * the stamp was stored; one Ed25519 signature for the whole batch over its id, size, root and
 * sealing time (core/proof-batch-signature.ts), each as `GET /stamps/{id}/proof` reports it.
 */
export function sealStamps(
  batchId: string,
  claimed: readonly ClaimedStamp[],
  signer: Signer,
  sealedAt: Date,
): SealedBatch {
  const stamps = [...claimed].sort((a, b) => (a.id < b.id ? -1 : 1));
  const tree = merkle.tree(stamps.map((s) => s.leafHash));
  const root = tree.root();
  const signed = {
    id: batchId,
    tree_size: stamps.length,
    root: bytesToHex(root),
    sealed_at: sealedAt.toISOString(),
  };
  return {
    batch: {
      id: batchId,
      sealedAt,
      treeSize: stamps.length,
      root,
      signature: signer.sign(proofBatchSigningMessage(signed)),
      publicKey: signer.publicKey,
      logIndex: null,
    },
    leaves: stamps.map((s, leafIndex) => ({
      stampId: s.id,
      accountId: s.accountId,
      leafIndex,
      auditPath: tree.inclusionProof(leafIndex),
    })),
    anchors: requestedAnchors(stamps),
  };
}

// RFC 8785 orders members by name, and `anchors` is the first of stampd.stamp/v1's: the array
// opens the canonical text, and reading it there spares parsing the whole document.
const OPENING_ANCHORS = /^\{"anchors":(\[[^\]]*\])/;

function requestedAnchors(stamps: readonly ClaimedStamp[]): AnchorType[] {
  const types = new Set<AnchorType>();
  for (const { id, opening } of stamps) {
    const anchors = OPENING_ANCHORS.exec(opening)?.[1];
    if (anchors === undefined) throw new Error(`stamp ${id}: stored document does not open with its anchors`);
    for (const type of JSON.parse(anchors) as AnchorType[]) types.add(type);
  }
  return [...types];
}
