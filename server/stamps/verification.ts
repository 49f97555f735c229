import { checkStamp } from "../../sdk/src/verify/check.js";
import { jcs } from "../../sdk/src/verify/jcs.js";
import type { AnchorState, StampDocument, VerifyResult } from "../../sdk/src/verify/types.js";
import { merkle } from "../fingerprints/merkle.js";
import type { ContentHash } from "../hashing/algorithms.js";
import { verifyEd25519 } from "../keys/ed25519.js";
import type { StampRepository, StoredStamp } from "./stamp-repository.js";

/** The live anchor states of a stored stamp (server/proofs/stamp-evidence.ts). */
export type AnchorLookup = (stamp: StoredStamp) => Promise<AnchorState[]>;

const NOT_RECORDED = "stamp not recorded by this deployment";

/**
 * The server side of verification: the SDK's checkStamp (one definition of a valid stamp) with
 * node:crypto signatures, this deployment's key as the only trusted service key, and anchor states
 * from this deployment's records.
 */
export function verifyStored(
  stamp: StoredStamp,
  anchors: AnchorState[],
  serviceKey: string,
  content?: ContentHash,
): Promise<VerifyResult> {
  return checkStamp(stamp.document, {
    ...serverChecks(serviceKey, content),
    anchorStates: () => anchors,
  });
}

/**
 * A document as a third party holds it. Its anchors are this deployment's records only when it is,
 * byte for byte in canonical form, a stamp this deployment issued; otherwise they are `failed`.
 */
export function verifyDocument(
  stampJson: unknown,
  stamps: Pick<StampRepository, "get">,
  anchorsOf: AnchorLookup,
  serviceKey: string,
  content?: ContentHash,
): Promise<VerifyResult> {
  return checkStamp(stampJson, {
    ...serverChecks(serviceKey, content),
    anchorStates: async (document) => {
      const stored = await stamps.get(document.stamp_id);
      return stored && sameDocument(stored.document, document) ? anchorsOf(stored) : unrecorded(document);
    },
  });
}

function serverChecks(serviceKey: string, content: ContentHash | undefined) {
  return {
    verifySignature: verifyEd25519,
    merkle,
    content: content ?? null,
    trustedServiceKeys: [serviceKey],
    trustedKeysOwner: "this deployment",
  };
}

const sameDocument = (a: StampDocument, b: StampDocument) => jcs(a) === jcs(b);

const unrecorded = (document: StampDocument): AnchorState[] =>
  document.anchors.map((type) => ({ type, status: "failed", reason: NOT_RECORDED }));
