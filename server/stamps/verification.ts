import { type CheckOptions, checkStamp } from "../../core/check.js";
import type { ContentHash } from "../../core/content-hash.js";
import { jcs } from "../../core/jcs.js";
import type { AnchorState, StampDocument, VerifyResult } from "../../core/types.js";
import { merkle } from "../fingerprints/merkle.js";
import { verifyEd25519 } from "../keys/ed25519.js";
import type { StampEvidence } from "./stamp-evidence.js";
import type { StampRepository, StoredStamp } from "./stamp-repository.js";

/**
 * Which service keys verification trusts: the deployment's key ring (each key for its period), or
 * one key where a service is assembled without a ring.
 */
export type ServiceKeyTrust = Pick<CheckOptions, "trustedServiceKeys" | "keyRing">;

/** The live evidence of a stored stamp (server/stamps/stamp-evidence.ts). */
export type EvidenceLookup = (stamp: StoredStamp) => Promise<StampEvidence>;

const NOT_RECORDED = "stamp not recorded by this deployment";

/**
 * The server side of verification: the SDK's checkStamp (one definition of a valid stamp) with
 * node:crypto signatures, this deployment's key ring as the trusted service keys, and anchor states,
 * sealing and log inclusion from this deployment's records.
 */
export function verifyStored(
  stamp: StoredStamp,
  evidence: StampEvidence,
  trust: ServiceKeyTrust,
  content?: ContentHash,
): Promise<VerifyResult> {
  return checkStamp(stamp.document, {
    ...serverChecks(trust, content),
    anchorStates: () => evidence.anchors,
    batchEvidence: () => evidence,
  });
}

/**
 * A document as a third party holds it. Its evidence is this deployment's records only when it is,
 * byte for byte in canonical form, a stamp this deployment issued; otherwise its anchors are
 * `failed` and it is neither sealed nor logged here.
 */
export function verifyDocument(
  stampJson: unknown,
  stamps: Pick<StampRepository, "get">,
  evidenceOf: EvidenceLookup,
  trust: ServiceKeyTrust,
  content?: ContentHash,
): Promise<VerifyResult> {
  // checkStamp asks for anchors, then for the batch evidence: one lookup serves both.
  let recorded: Promise<StampEvidence> | undefined;
  const lookup = (document: StampDocument) =>
    (recorded ??= stamps
      .get(document.stamp_id)
      .then((stored) =>
        stored && sameDocument(stored.document, document) ? evidenceOf(stored) : unrecorded(document),
      ));
  return checkStamp(stampJson, {
    ...serverChecks(trust, content),
    anchorStates: async (document) => (await lookup(document)).anchors,
    batchEvidence: lookup,
  });
}

function serverChecks(trust: ServiceKeyTrust, content: ContentHash | undefined) {
  return {
    verifySignature: verifyEd25519,
    merkle,
    content: content ?? null,
    ...trust,
    trustedKeysOwner: "this deployment",
  };
}

const sameDocument = (a: StampDocument, b: StampDocument) => jcs(a) === jcs(b);

const unrecorded = (document: StampDocument): StampEvidence => ({
  anchors: document.anchors.map((type): AnchorState => ({ type, status: "failed", reason: NOT_RECORDED })),
  sealed: false,
  logged: false,
  proof: null,
});
