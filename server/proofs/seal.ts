import { monotonicFactory } from "ulid";
import { stampLeafData } from "../../sdk/src/verify/stamp-leaf.js";
import { merkle } from "../fingerprints/merkle.js";
import type { Signer } from "../keys/ed25519.js";
import type { AnchorType } from "../stamps/stamp-settings.js";
import type { ClaimedStamp, SealedBatch } from "./proof-repository.js";

const nextUlid = monotonicFactory();

/** `bat_` and a ULID of the sealing time (docs/design.md, Identifiers). */
export const newBatchId = (at: Date): string => `bat_${nextUlid(at.getTime())}`;

interface Claimed {
  id: string;
  accountId: string | null;
  document: { anchors: AnchorType[] };
}

/**
 * Builds and signs the batch of the claimed stamps: leaves in stamp id order, each the RFC 6962
 * leaf hash of the stamp document in canonical form (sdk/src/verify/stamp-leaf.ts), one Ed25519
 * signature over the 32 root bytes for the whole batch.
 */
export function sealStamps(
  batchId: string,
  claimed: readonly ClaimedStamp[],
  signer: Signer,
  sealedAt: Date,
): SealedBatch {
  const stamps: Claimed[] = claimed
    .map((s) => ({ id: s.id, accountId: s.accountId, document: JSON.parse(s.stampJson) }))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
  const tree = merkle.tree(stamps.map((s) => merkle.leafHash(stampLeafData(s.document))));
  const root = tree.root();
  return {
    batch: {
      id: batchId,
      sealedAt,
      treeSize: stamps.length,
      root,
      signature: signer.sign(root),
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

function requestedAnchors(stamps: readonly Claimed[]): AnchorType[] {
  return [...new Set(stamps.flatMap((s) => s.document.anchors))];
}
