import { stampStatus, trustScore } from "../../core/trust.js";
import type { AnchorState } from "../../core/types.js";
import type { StampEvidence, StampEvidenceProof } from "./stamp-evidence.js";
import type { StampStatus, StoredStamp } from "./stamp-repository.js";

/**
 * A stored stamp with what is live about it: anchor states, status, trust score, proof
 * (server/proofs). Status and score are worked out from the evidence on every read, never taken
 * from storage, so stamps stored under an earlier rule are judged by the current one.
 */
export interface StampView {
  stamp: StoredStamp;
  anchors: AnchorState[];
  status: StampStatus;
  trustScore: number;
  trustMet: boolean;
  /** The Merkle batch proof (gRPC `Proof`); null while the stamp is pending. */
  proof: StampEvidenceProof | null;
}

/** The view of a stamp this service issued: its own signatures are valid by construction. */
export function viewOf(stamp: StoredStamp, evidence: StampEvidence): StampView {
  const { anchors, sealed, logged } = evidence;
  const score = trustScore({
    serviceSignature: true,
    authorSignature: stamp.document.author_public_key !== null,
    sealed,
    logged,
    anchors,
  });
  return {
    stamp,
    anchors,
    status: stampStatus(sealed, anchors),
    trustScore: score,
    trustMet: score >= stamp.document.trust_threshold,
    proof: evidence.proof,
  };
}
