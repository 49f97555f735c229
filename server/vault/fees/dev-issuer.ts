import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { join } from "node:path";
import { ed25519Signer, type Signer } from "../../keys/ed25519.js";
import { readOrCreateKeyFile } from "../../keys/key-file.js";
import type { Logger } from "../../logger.js";

/** Where the development fee issuer's private key lives, beside the server's other key files. */
export function devIssuerKeyPath(dataDir: string): string {
  return join(dataDir, "keys", "fee-issuer-dev.pem");
}

const newKeyPem = (): string =>
  generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();

/**
 * The development fee issuer: an Ed25519 key created in DATA_DIR/keys/ on first use, shared by the
 * server (which trusts it when FEE_ISSUER_PUBLIC_KEYS is unset outside production) and
 * `stampd receipts issue` (which signs with it). Production never trusts it implicitly.
 */
export function devIssuer(dataDir: string, logger: Logger): Signer {
  return ed25519Signer(createPrivateKey(readOrCreateKeyFile(devIssuerKeyPath(dataDir), newKeyPem, logger)));
}
