import { createPrivateKey, X509Certificate } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.js";
import type { Logger } from "../logger.js";
import type { AtRestCipher } from "./at-rest-cipher.js";
import { readKeyFile, readOrCreateKeyFile } from "./key-file.js";
import { ringKeyId, sealRingKey } from "./key-ring.js";
import type { StoredRingKey } from "./key-ring-repository.js";

/**
 * A TSA key and its certificate chain, PEM: the ECDSA P-256 key (OpenSSL's `ts` cannot use
 * Ed25519), then the time-stamping certificate followed by the CA certificates up to a root,
 * which is what the key ring publishes of it and `GET /tsa/ca.pem` takes its CAs from.
 */
export interface TsaKeyAndChain {
  keyPem: string;
  chainPem: string;
}

/** The certificates of a PEM text, each block as written. */
export const certificateBlocks = (pem: string): string[] =>
  pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];

/**
 * The TSA of `DATA_DIR/keys/tsa.pem` (key, TSA certificate, CA certificate), created on first
 * start: what the first instance registers in the ring, and what every other one must hold a
 * certificate of the ring in (join-key-ring.ts). Of two processes creating it at once, one file
 * wins (exclusive create) and both use it. Undefined when the file is missing and `use.create` is
 * not set: an instance joining a deployment signs tokens with the ring's TSA keys.
 */
export async function loadTsaFile(
  config: Pick<Config, "DATA_DIR">,
  logger: Logger,
  use: { create: boolean },
): Promise<TsaKeyAndChain | undefined> {
  const path = join(config.DATA_DIR, "keys", "tsa.pem");
  if (!existsSync(path) && !use.create) return undefined;
  const text = existsSync(path)
    ? readKeyFile(path, logger)
    : await freshTsaCredentials(new Date(), true).then((fresh) =>
        readOrCreateKeyFile(path, () => `${fresh.keyPem}${fresh.chainPem}`, logger),
      );
  const key = text.match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n?/)?.[0];
  const chain = certificateBlocks(text);
  if (!key || chain.length < 2) throw new Error(`${path}: expected a private key and two certificates`);
  return { keyPem: key, chainPem: chain.join("") };
}

/**
 * A new TSA of its own: a fresh key whose certificate a fresh self-signed CA issues, the CA's key
 * dropped once it has signed (proofs/tsa/certificates.ts). Each rotation brings its CA, so no key
 * able to issue TSA certificates outlives the moment it was needed; `GET /tsa/ca.pem` serves them
 * all. A rotation's certificates are named for its time (the first start's are `stampd CA` and
 * `stampd TSA`), so a verifier holding the bundle tells the CAs apart by name as well as by key id.
 */
export async function freshTsaCredentials(now: Date, first = false): Promise<TsaKeyAndChain> {
  const { createTsaCredentials } = await import("../proofs/tsa/certificates.js");
  const name = first ? "stampd" : `stampd ${now.toISOString().slice(0, 19)}Z`;
  const fresh = await createTsaCredentials(name, now);
  return { keyPem: fresh.keyPem, chainPem: `${fresh.certPem}${fresh.caPem}` };
}

/**
 * An operator's TSA key and certificate (`stampd keys rotate --kind tsa --cert-file --key-file`),
 * checked as `openssl ts -verify` will check its tokens: an ECDSA P-256 key that is the first
 * certificate's, that certificate for time-stamping only (extendedKeyUsage `timeStamping`,
 * critical: RFC 3161 2.3), each certificate issued by the next. Throws a one-line Error otherwise.
 */
export async function readTsaCredentials(certFile: string, keyFile: string): Promise<TsaKeyAndChain> {
  const keyPem = readFileSync(keyFile, "utf8");
  const chainPem = readFileSync(certFile, "utf8");
  const key = createPrivateKey(keyPem);
  if (key.asymmetricKeyType !== "ec" || key.asymmetricKeyDetails?.namedCurve !== "prime256v1") {
    throw new Error(`${keyFile}: not an ECDSA P-256 private key`);
  }
  const blocks = certificateBlocks(chainPem);
  if (blocks.length < 2) {
    throw new Error(`${certFile}: expected the TSA certificate followed by its CA certificates`);
  }
  const chain = blocks.map((block) => new X509Certificate(block));
  if (!chain[0]!.checkPrivateKey(key))
    throw new Error(`${keyFile} is not the key of ${certFile}'s first certificate`);
  if (!(await timeStampingOnly(chain[0]!))) {
    throw new Error(
      `${certFile}: the first certificate's extendedKeyUsage is not timeStamping alone, critical`,
    );
  }
  chain.slice(1).forEach((issuer, i) => {
    if (!chain[i]!.checkIssued(issuer) || !chain[i]!.verify(issuer.publicKey)) {
      throw new Error(`${certFile}: certificate ${i + 1} is not issued by certificate ${i + 2}`);
    }
  });
  return { keyPem: key.export({ format: "pem", type: "pkcs8" }).toString(), chainPem: blocks.join("") };
}

/** OpenSSL's check for a TSA certificate (X509_PURPOSE_TIMESTAMP_SIGN), which Node does not expose. */
async function timeStampingOnly(cert: X509Certificate): Promise<boolean> {
  const pkijs = await import("pkijs");
  const eku = pkijs.Certificate.fromBER(new Uint8Array(cert.raw)).extensions?.find(
    (e) => e.extnID === "2.5.29.37",
  );
  return eku?.critical === true && cert.keyUsage?.join() === "1.3.6.1.5.5.7.3.8";
}

/** A TSA entry of the ring: its chain, the period it signs tokens for, its key sealed. */
export function newTsaRingKey(
  credentials: TsaKeyAndChain,
  atRest: AtRestCipher,
  notBefore: Date,
): StoredRingKey {
  const keyId = ringKeyId(credentials.chainPem);
  const der = createPrivateKey(credentials.keyPem).export({ format: "der", type: "pkcs8" });
  return {
    kind: "tsa",
    keyId,
    publicKey: credentials.chainPem,
    origin: null,
    sealedPrivateKey: sealRingKey("tsa", keyId, der, atRest),
    notBefore,
    notAfter: null,
    state: "active",
    revokedAt: null,
    revocationReason: null,
  };
}

/** The CA certificates of the ring's TSA keys, each once: every one a token's verifier may need. */
export function tsaCaBundle(keys: readonly Pick<StoredRingKey, "publicKey">[]): string {
  const cas = keys.flatMap((k) => certificateBlocks(k.publicKey).slice(1).map(normalized));
  return [...new Set(cas)].join("");
}

const normalized = (block: string) => (block.endsWith("\n") ? block : `${block}\n`);
