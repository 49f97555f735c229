import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { join } from "node:path";
import type { Config } from "../config.js";
import { ConfigError } from "../config.js";
import type { Logger } from "../logger.js";
import { type AtRestCipher, atRestCipher } from "./at-rest-cipher.js";
import { ed25519Signer, type Signer } from "./ed25519.js";
import { readKeyFile, readOrCreateKeyFile } from "./key-file.js";
import type { DeploymentKeyRing } from "./key-ring.js";

/**
 * The service's secrets: its Ed25519 stamp-signing key and the 256-bit key that encrypts secrets
 * at rest (identity private keys). Both stay inside these objects and are never logged.
 */
export interface ServiceKeys {
  signing: Signer;
  atRest: AtRestCipher;
  /** The checkpoint-signing key; absent: `signing` (a service assembled without a key ring). */
  log?: Signer;
  /** The deployment's key ring (server/keys/key-ring.ts); absent: `signing` is the only key trusted. */
  ring?: DeploymentKeyRing;
}

/** The key files created in `DATA_DIR/keys/` when the configuration names none. */
export const defaultKeyFiles = { signing: "service-ed25519.pem", atRest: "at-rest.key" } as const;

type KeyConfig = Pick<Config, "DATA_DIR" | "SERVICE_SIGNING_KEY_FILE" | "AT_REST_KEY_FILE" | "AT_REST_KEY">;

/**
 * Loads the keys named by the configuration. A file named explicitly must exist; the default files
 * in `DATA_DIR/keys/` are created on first start, so a deployment keeps its keys across restarts.
 */
export function loadServiceKeys(config: KeyConfig, logger: Logger): ServiceKeys {
  const { signingKey, atRest } = loadConfiguredKeys(config, logger);
  return { signing: ed25519Signer(signingKey), atRest };
}

/** The configured secrets themselves, which the key ring checks and registers (join-key-ring.ts). */
export function loadConfiguredKeys(
  config: KeyConfig,
  logger: Logger,
): { signingKey: KeyObject; atRest: AtRestCipher } {
  return { signingKey: loadSigningKey(config, logger), atRest: atRestCipher(loadAtRestKey(config, logger)) };
}

function loadSigningKey(config: KeyConfig, logger: Logger): KeyObject {
  const pem = config.SERVICE_SIGNING_KEY_FILE
    ? readConfigured("SERVICE_SIGNING_KEY_FILE", config.SERVICE_SIGNING_KEY_FILE, logger)
    : readOrCreateKeyFile(join(config.DATA_DIR, "keys", defaultKeyFiles.signing), newSigningKeyPem, logger);
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519") {
    throw new ConfigError("invalid configuration: SERVICE_SIGNING_KEY_FILE: not an Ed25519 private key");
  }
  return key;
}

function loadAtRestKey(config: KeyConfig, logger: Logger): Buffer {
  if (config.AT_REST_KEY && config.AT_REST_KEY_FILE) {
    throw new ConfigError(
      "invalid configuration: AT_REST_KEY: set AT_REST_KEY or AT_REST_KEY_FILE, not both",
    );
  }
  const hex = config.AT_REST_KEY_FILE
    ? readConfigured("AT_REST_KEY_FILE", config.AT_REST_KEY_FILE, logger)
    : (config.AT_REST_KEY ??
      readOrCreateKeyFile(join(config.DATA_DIR, "keys", defaultKeyFiles.atRest), newAtRestKeyHex, logger));
  const key = hex.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(key)) {
    throw new ConfigError("invalid configuration: AT_REST_KEY: the key must be 64 hex characters (256 bits)");
  }
  return Buffer.from(key, "hex");
}

function readConfigured(variable: string, path: string, logger: Logger): string {
  try {
    return readKeyFile(path, logger);
  } catch (err) {
    throw new ConfigError(
      `invalid configuration: ${variable}: cannot read ${path}: ${(err as Error).message}`,
    );
  }
}

const newSigningKeyPem = (): string =>
  generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }).toString();

const newAtRestKeyHex = (): string => `${randomBytes(32).toString("hex")}\n`;
