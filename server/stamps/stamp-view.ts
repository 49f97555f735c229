import { trustScore } from "../../sdk/src/verify/trust.js";
import type { AnchorState } from "../../sdk/src/verify/types.js";
import type { StampEvidence, StampProof } from "../proofs/stamp-evidence.js";
import type { StoredStamp } from "./stamp-repository.js";

/** A stored stamp with what is live about it: anchor states, trust score, proof (server/proofs). */
export interface StampView {
  stamp: StoredStamp;
  anchors: AnchorState[];
  trustScore: number;
  trustMet: boolean;
  /** The Merkle batch proof (gRPC `Proof`); null while the stamp is pending. */
  proof: StampProof | null;
}

/** The evidence of a stamp no batch holds yet: every requested anchor pending, no proof. */
export function initialEvidence(stamp: StoredStamp): StampEvidence {
  return { anchors: stamp.document.anchors.map((type) => ({ type, status: "pending" })), proof: null };
}

/** The view of a stamp this service issued: its own signatures are valid by construction. */
export function viewOf(stamp: StoredStamp, evidence: StampEvidence = initialEvidence(stamp)): StampView {
  const { anchors } = evidence;
  const score = trustScore({
    serviceSignature: true,
    authorSignature: stamp.document.author_public_key !== null,
    hasFingerprint: stamp.document.fingerprint !== null,
    anchors,
  });
  return {
    stamp,
    anchors,
    trustScore: score,
    trustMet: score >= stamp.document.trust_threshold,
    proof: evidence.proof,
  };
}
