import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { components } from "../gen/openapi/types.js";
import { fromBase64 } from "./base64.js";

/** The deployment's key ring (`GET /keys`): every key it has signed with, and when. */
export type KeyRing = components["schemas"]["KeyRing"];
export type RingKey = components["schemas"]["RingKey"];
export type RingKeyKind = components["schemas"]["RingKeyKind"];

/**
 * Why `ring` does not vouch for a signature by `publicKey` (a `kind` key) made at `signedAt`, or
 * null when it does. As RFC 3161 authorities and CT logs treat their retired keys, a key signs for
 * the period it was the deployment's (`not_before` to `not_after`), which a later rotation does
 * not take back; a revoked key vouches for nothing dated from its revocation on.
 *
 * @example
 * const problem = ringKeyProblem(ring.keys, "service", stamp.service_public_key, stamp.created_at);
 * if (problem) console.log(`untrusted: ${problem}`);
 */
export function ringKeyProblem(
  ring: readonly RingKey[],
  kind: RingKeyKind,
  publicKey: string,
  signedAt: string,
  owner = "the key ring",
): string | null {
  const key = ring.find((k) => k.kind === kind && k.public_key === publicKey);
  if (!key) return `key ${publicKey} is not a ${kind} key of ${owner}`;
  const at = Date.parse(signedAt);
  if (key.revoked_at !== undefined && !(at < Date.parse(key.revoked_at))) {
    const reason = key.revocation_reason ? ` (${key.revocation_reason})` : "";
    return `${kind} key ${key.key_id} was revoked at ${key.revoked_at}${reason}: what it signed from then on is not trusted (signed at ${signedAt})`;
  }
  const before = at < Date.parse(key.not_before);
  const after = key.not_after !== undefined && at >= Date.parse(key.not_after);
  if (Number.isNaN(at) || before || after) {
    return `${kind} key ${key.key_id} signed at ${signedAt}, outside its period ${key.not_before} to ${key.not_after ?? "now"}`;
  }
  return null;
}

/**
 * The verifier keys of the ring's log keys (`verifyCheckpoint`'s trusted keys): every log key the
 * deployment used, so checkpoints from before and after a log key rotation all verify. A revoked
 * log key is left out: checkpoints carry no time, so none of its signatures can be told safe.
 */
export function ringVerifierKeys(ring: readonly RingKey[]): string[] {
  return ring.flatMap((k) =>
    k.kind === "log" && k.state !== "revoked" && k.verifier_key ? [k.verifier_key] : [],
  );
}

/** The PEM blocks of a TSA key's chain (`public_key`): its time-stamping certificate, then its CAs. */
const chainBlocks = (key: RingKey): string[] =>
  key.public_key.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];

/**
 * The CA certificates of the ring's TSA keys, each once, PEM: the trust anchors of every token the
 * deployment's TSA signed, before and after its rotations (what `GET /tsa/ca.pem` serves).
 *
 * @example
 * const { genTime } = await verifyTimestampToken(tsr, "sha256", hash, ringTsaCaPem(ring.keys));
 */
export function ringTsaCaPem(ring: readonly RingKey[]): string {
  const cas = ring.flatMap((k) => (k.kind === "tsa" ? chainBlocks(k).slice(1) : []));
  return [...new Set(cas)].map((block) => `${block}\n`).join("");
}

/**
 * Why `ring` does not vouch for a token signed by the TSA certificate whose SHA-256 (hex, as the
 * token's ESSCertIDv2 names it) is `certificateHash`, dated `genTime`; null when it does: the
 * certificate is a ring TSA key's, and `genTime` in that key's period and before any revocation.
 *
 * @example
 * const { genTime, certificateHash } = await verifyTimestampToken(tsr, "sha256", hash, caPem);
 * const problem = ringTsaKeyProblem(ring.keys, certificateHash, genTime.toISOString());
 */
export function ringTsaKeyProblem(
  ring: readonly RingKey[],
  certificateHash: string,
  genTime: string,
): string | null {
  const key = ring.find((k) => {
    const [certificate] = k.kind === "tsa" ? chainBlocks(k) : [];
    if (!certificate) return false;
    const der = fromBase64(certificate.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, ""));
    return bytesToHex(sha256(der)) === certificateHash.toLowerCase();
  });
  if (!key) return `the TSA certificate ${certificateHash.slice(0, 16)}… is not a TSA key of the key ring`;
  return ringKeyProblem(ring, "tsa", key.public_key, genTime);
}
