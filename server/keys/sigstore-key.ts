import { createPublicKey, hkdfSync, type KeyObject, X509Certificate } from "node:crypto";
import { p256 } from "@noble/curves/nist.js";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";

/**
 * A service key's Sigstore twin: the ECDSA P-256 key that signs the `messageSignature` of a
 * stamp's Sigstore bundle (docs/sigstore.md). Sigstore clients check a message signature with
 * `crypto.verify(<digest algorithm>, document, key, signature)`, which Ed25519 keys refuse (a
 * digest cannot be named for them), so the service key cannot sign it itself. The twin is derived
 * from the service key (HKDF-SHA-256 over its private seed), not stored: it is sealed at rest,
 * rotated and revoked with its service key, and every instance holding the ring derives the same.
 */
export interface SigstoreKey {
  /** `ecdsa-p256:<hex SEC 1 compressed point>`. */
  readonly publicKey: string;
  /** DER SubjectPublicKeyInfo: what Sigstore's entries and trusted roots carry. */
  readonly spki: Buffer;
  /** An ECDSA signature (DER) over a 32-byte digest, as if over the document it is the digest of. */
  sign(digest: Uint8Array): Uint8Array;
}

const SALT = Buffer.from("stampd sigstore key");
const INFO = Buffer.from("ecdsa-p256 v1");

/** The Sigstore twin of the service key whose PKCS#8 DER (Ed25519: seed in the last 32 bytes) is given. */
export function sigstoreKeyOf(servicePkcs8: Buffer): SigstoreKey {
  const seed = servicePkcs8.subarray(servicePkcs8.length - 32);
  // 48 bytes reduced modulo the group order (FIPS 186-5 A.2.1): a uniform scalar, never zero.
  const material = new Uint8Array(hkdfSync("sha256", seed, SALT, INFO, 48));
  const secret = p256.utils.randomSecretKey(material);
  const point = p256.getPublicKey(secret, true);
  const publicKey = `ecdsa-p256:${bytesToHex(point)}`;
  return {
    publicKey,
    spki: spkiOf(point),
    // RFC 6979 nonces: the same digest signs the same way on every instance.
    sign: (digest) => p256.sign(digest, secret, { prehash: false, format: "der" }),
  };
}

/** DER SubjectPublicKeyInfo of a P-256 point (SEC 1, compressed or not). */
function spkiOf(point: Uint8Array): Buffer {
  const full = p256.Point.fromBytes(point).toBytes(false);
  const jwk = {
    kty: "EC",
    crv: "P-256",
    x: Buffer.from(full.subarray(1, 33)).toString("base64url"),
    y: Buffer.from(full.subarray(33)).toString("base64url"),
  };
  return createPublicKey({ key: jwk, format: "jwk" }).export({ type: "spki", format: "der" });
}

/**
 * A published key's SubjectPublicKeyInfo as PEM: `ed25519:<hex>`, `ecdsa-p256:<hex>` or a TSA's
 * PEM certificate chain (its first certificate's key).
 */
export function publicKeyPem(publicKey: string): string {
  return publicKeyObject(publicKey).export({ type: "spki", format: "pem" }).toString();
}

/** The same key as DER SubjectPublicKeyInfo (a Sigstore trusted root's `rawBytes`). */
export function publicKeySpki(publicKey: string): Buffer {
  return publicKeyObject(publicKey).export({ type: "spki", format: "der" });
}

function publicKeyObject(publicKey: string): KeyObject {
  if (publicKey.startsWith("ed25519:")) {
    const x = Buffer.from(hexToBytes(publicKey.slice("ed25519:".length))).toString("base64url");
    return createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" });
  }
  if (publicKey.startsWith("ecdsa-p256:")) {
    const point = hexToBytes(publicKey.slice("ecdsa-p256:".length));
    return createPublicKey({ key: spkiOf(point), format: "der", type: "spki" });
  }
  return new X509Certificate(publicKey).publicKey;
}
