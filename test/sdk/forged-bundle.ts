import { generateKeyPairSync } from "node:crypto";
import { signedPayload } from "../../core/payload.js";
import type { StampDocument } from "../../core/types.js";
import type { ProofBundle } from "../../sdk/src/index.js";
import { ed25519Signer } from "../../server/keys/ed25519.js";

/**
 * What a forger makes of a genuine bundle with a key of their own: the stamp document changed as
 * they like (a `created_at` in 2019), signed again with their key and embedding it, saved as a
 * stamp the service has not sealed yet (no proof, log or token to contradict it).
 */
export function forgeSelfSigned(genuine: ProofBundle, changes: Partial<StampDocument>): ProofBundle {
  const forger = ed25519Signer(generateKeyPairSync("ed25519").privateKey);
  const unsigned = { ...genuine.stamp.stamp_json, ...changes, service_public_key: forger.publicKey };
  const stamp_json = {
    ...unsigned,
    signatures: { service: forger.sign(signedPayload(unsigned)), author: null },
  } as StampDocument;
  return {
    ...genuine,
    stamp: {
      ...genuine.stamp,
      ...(changes.created_at && { created_at: changes.created_at }),
      stamp_json,
      status: "pending",
      anchors: genuine.stamp.anchors.map(({ type }) => ({ type, status: "pending" as const })),
    },
    proof: null,
    log: null,
    timestamp: null,
  };
}
