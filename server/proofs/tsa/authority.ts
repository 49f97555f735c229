import { webcrypto } from "node:crypto";
import { ServiceError } from "../../errors.js";
import type { DeploymentKeyRing } from "../../keys/key-ring.js";
import type { StoredRingKey } from "../../keys/key-ring-repository.js";
import { certificateBlocks, tsaCaBundle } from "../../keys/tsa-keys.js";
import type { TokenFacts, TsaSigner } from "./token.js";

/**
 * The service's own time-stamp authority, signing with the key ring's TSA keys (ECDSA P-256:
 * OpenSSL's `ts` cannot use Ed25519). A token is issued on demand and dated to its stamp, so it is
 * signed by the TSA key whose period holds that date, as the ring publishes it: tokens of stamps
 * made before a rotation keep their certificate, and verify with the ring and the CA bundle alike.
 * The ASN.1 library (pkijs, some megabytes of heap) is loaded when a token is issued, not before.
 */
export class TimestampAuthority {
  private readonly signers = new Map<string, Promise<TsaSigner>>();

  constructor(private readonly ring: Pick<DeploymentKeyRing, "tsa" | "tsaPrivateKey">) {}

  /** Every CA certificate of the ring's TSA keys, PEM: what `openssl ts -verify -CAfile` needs. */
  get caPem(): string {
    return tsaCaBundle(this.ring.tsa);
  }

  /** A granted RFC 3161 response (DER) stating `facts`, signed by the TSA key of `facts.genTime`. */
  async respond(facts: TokenFacts): Promise<Uint8Array> {
    const signer = await this.signerOf(this.keyAt(facts.genTime));
    const { grantedResponse } = await import("./token.js");
    return grantedResponse(facts, signer);
  }

  /**
   * The newest TSA key whose period holds `at` and that was not revoked by then. A revoked key's
   * tokens from its revocation on are not trusted, and no other key's certificate may speak for a
   * time before its own period: such a stamp has no token to give.
   */
  private keyAt(at: Date): StoredRingKey {
    const t = at.getTime();
    const inPeriod = this.ring.tsa.filter(
      (k) => k.notBefore.getTime() <= t && (k.notAfter === null || t < k.notAfter.getTime()),
    );
    const key = inPeriod.findLast((k) => k.revokedAt === null || t < k.revokedAt.getTime());
    if (key) return key;
    const revoked = inPeriod.at(-1);
    throw new ServiceError(
      "unprocessable",
      revoked
        ? `no RFC 3161 token can be issued for ${at.toISOString()}: TSA key ${revoked.keyId}, whose period holds it, was revoked at ${revoked.revokedAt!.toISOString()}`
        : `no RFC 3161 token can be issued for ${at.toISOString()}: no TSA key of the key ring signs for that time`,
      "timestamp_key_revoked",
    );
  }

  /** A key's signer, imported once per key. */
  private signerOf(key: StoredRingKey): Promise<TsaSigner> {
    let signer = this.signers.get(key.keyId);
    if (!signer) {
      signer = importSigner(key, this.ring.tsaPrivateKey(key));
      this.signers.set(key.keyId, signer);
    }
    return signer;
  }
}

async function importSigner(key: StoredRingKey, pkcs8: Buffer): Promise<TsaSigner> {
  const privateKey = await webcrypto.subtle.importKey(
    "pkcs8",
    new Uint8Array(pkcs8),
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const [certificate] = certificateBlocks(key.publicKey);
  const der = Buffer.from(certificate!.replace(/-----[^-]+-----|\s/g, ""), "base64");
  return { privateKey: privateKey as CryptoKey, certificate: new Uint8Array(der) };
}
