import { hexToBytes } from "@noble/hashes/utils.js";
import { jcs } from "../../core/jcs.js";
import type { StoredStamp } from "../stamps/stamp-repository.js";

/** The digest algorithms a Sigstore bundle names (protobuf-specs `HashAlgorithm`), by stamp algorithm. */
export const sigstoreDigests: Partial<Record<string, "SHA2_256" | "SHA3_256">> = {
  sha256: "SHA2_256",
  "sha3-256": "SHA3_256",
};

/** The digest a stamp's bundle signs and logs; undefined when Sigstore names no digest of its algorithm. */
export function bundleDigest(
  stamp: Pick<StoredStamp, "document" | "contentSha256">,
): { algorithm: "SHA2_256" | "SHA3_256"; digest: Uint8Array } | undefined {
  // An upload's SHA-256, computed in the read that made its SHA3-256 (migration 0016), since some
  // Sigstore clients accept SHA2_256 only; uploads stored before it have their SHA3-256 alone.
  if (stamp.contentSha256) return { algorithm: "SHA2_256", digest: hexToBytes(stamp.contentSha256) };
  const { algorithm, hash } = stamp.document.document;
  const digestAlgorithm = sigstoreDigests[algorithm];
  return digestAlgorithm && { algorithm: digestAlgorithm, digest: hexToBytes(hash) };
}

export interface HashedRekordFacts {
  algorithm: "SHA2_256" | "SHA3_256";
  digest: Uint8Array;
  signature: Uint8Array;
  /** The signing key, DER SubjectPublicKeyInfo (ECDSA P-256). */
  spki: Uint8Array;
}

const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

/**
 * A Rekor v2 `hashedrekord` 0.0.2 entry (protobuf-specs `rekor.v2.Entry`, JSON mapping) in RFC 8785
 * form, UTF-8: the stamp log's entry bytes and a bundle's `canonicalizedBody`. Sigstore clients
 * compare its digest and signature with the bundle's `messageSignature`.
 */
export function hashedRekordBody(facts: HashedRekordFacts): Uint8Array {
  const entry = {
    kind: "hashedrekord",
    apiVersion: "0.0.2",
    spec: {
      hashedRekordV002: {
        data: { algorithm: facts.algorithm, digest: base64(facts.digest) },
        signature: {
          content: base64(facts.signature),
          verifier: { publicKey: { rawBytes: base64(facts.spki) }, keyDetails: "PKIX_ECDSA_P256_SHA_256" },
        },
      },
    },
  };
  return new TextEncoder().encode(jcs(entry));
}
