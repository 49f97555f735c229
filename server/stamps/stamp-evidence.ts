import type { AnchorState } from "../../core/types.js";
import type { AnchorAvailability } from "../anchors/availability.js";
import type { StoredStamp } from "./stamp-repository.js";

/** A stamp's cryptographic proof, in the terms of the gRPC `Proof` message (hex strings). */
export interface StampEvidenceProof {
  batchId: string;
  leafIndex: number;
  treeSize: number;
  /** RFC 6962 root of the batch. */
  merkleRoot: string;
  /** Audit path from the stamp's leaf to `merkleRoot`, leaf level first. */
  merkleProof: string[];
  /** The batch signature (core/proof-batch-signature.ts: version 2, or the root alone for older batches). */
  primeSignature: string;
  /** `<type>:<reference>` of each confirmed anchor, in confirmation order. */
  witnesses: string[];
  /** The latest confirmed chain anchor (`bitcoin:…`, `ethereum:…`), or "". */
  chainAnchor: string;
}

/**
 * What is live about a stamp: its anchors' states, whether its batch is sealed and logged (the
 * trust score's evidence, core/trust.ts) and its proof once its batch is sealed.
 */
export interface StampEvidence {
  anchors: AnchorState[];
  sealed: boolean;
  logged: boolean;
  proof: StampEvidenceProof | null;
}

/**
 * The port through which the stamps domain reads what is live about a stamp; the proofs domain
 * implements it (server/proofs/stamp-evidence.ts), so stamps never imports proofs.
 */
export interface EvidenceSource {
  /** The evidence of a stamp just made, read from nothing. */
  initial(stamp: StoredStamp): StampEvidence;
  of(stamp: StoredStamp, options?: { withEvidence?: boolean }): Promise<StampEvidence>;
}

/**
 * The evidence of a stamp no batch holds yet: each requested anchor pending, or `unavailable` with
 * its reason when this deployment cannot provide it; not sealed, not logged, no proof.
 */
export function initialEvidence(stamp: StoredStamp, availability?: AnchorAvailability): StampEvidence {
  const anchors = stamp.document.anchors.map((type): AnchorState => {
    const reason = availability?.[type];
    return reason ? { type, status: "unavailable", reason } : { type, status: "pending" };
  });
  return { anchors, sealed: false, logged: false, proof: null };
}
