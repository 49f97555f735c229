import { webcrypto } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config.js";
import { readKeyFile, readOrCreateKeyFile } from "../../keys/key-file.js";
import type { Logger } from "../../logger.js";
import type { TokenFacts, TsaSigner } from "./token.js";

/**
 * The service's own time-stamp authority: an ECDSA P-256 key (OpenSSL's `ts` cannot use Ed25519)
 * and its certificate chain, in `DATA_DIR/keys/tsa.pem`, created on first start. The ASN.1 library
 * (pkijs, some megabytes of heap) is loaded when a bundle is created or a token issued, not before.
 */
export class TimestampAuthority {
  constructor(
    private readonly signer: TsaSigner,
    /** The CA certificate, PEM: what `openssl ts -verify -CAfile` needs. */
    readonly caPem: string,
    /** The TSA certificate then the CA's, PEM: what the key ring publishes of this TSA. */
    readonly chainPem: string,
  ) {}

  /** A granted RFC 3161 response (DER) stating `facts`. */
  async respond(facts: TokenFacts): Promise<Uint8Array> {
    const { grantedResponse } = await import("./token.js");
    return grantedResponse(facts, this.signer);
  }
}

/** Reads the TSA bundle (key, TSA certificate, CA certificate), creating it on first start. */
export async function loadTimestampAuthority(
  config: Pick<Config, "DATA_DIR">,
  logger: Logger,
  now: Date = new Date(),
): Promise<TimestampAuthority> {
  const path = join(config.DATA_DIR, "keys", "tsa.pem");
  const text = existsSync(path) ? readKeyFile(path, logger) : await createBundle(path, now, logger);
  const [key, cert, ca] = pemBlocks(text);
  if (!key || !cert || !ca) throw new Error(`${path}: expected a private key and two certificates`);
  const privateKey = await webcrypto.subtle.importKey(
    "pkcs8",
    key,
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  return new TimestampAuthority(
    { privateKey: privateKey as CryptoKey, certificate: cert },
    text.slice(text.lastIndexOf("-----BEGIN CERTIFICATE-----")),
    text.slice(text.indexOf("-----BEGIN CERTIFICATE-----")),
  );
}

/**
 * Generating is async and readOrCreateKeyFile's creator is not, so the bundle is made first; of two
 * processes racing here, one file wins (exclusive create) and both use it.
 */
async function createBundle(path: string, now: Date, logger: Logger): Promise<string> {
  const { createTsaCredentials } = await import("./certificates.js");
  const fresh = await createTsaCredentials("stampd", now);
  return readOrCreateKeyFile(path, () => `${fresh.keyPem}${fresh.certPem}${fresh.caPem}`, logger);
}

function pemBlocks(text: string): Uint8Array<ArrayBuffer>[] {
  const blocks = text.match(/-----BEGIN [^-]+-----[^-]+-----END [^-]+-----/g) ?? [];
  return blocks.map(
    (block) => new Uint8Array(Buffer.from(block.replace(/-----[^-]+-----|\s/g, ""), "base64")),
  );
}
