import { execFileSync } from "node:child_process";
import { createPrivateKey, generateKeyPairSync, type KeyObject, randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
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

export type KeyConfig = Pick<
  Config,
  "DATA_DIR" | "SERVICE_SIGNING_KEY_FILE" | "AT_REST_KEY_FILE" | "AT_REST_KEY"
> &
  Partial<Pick<Config, "AT_REST_KEY_COMMAND" | "AT_REST_KEY_COMMAND_TIMEOUT_SECONDS">>;

/** Whether a default key file may be made when missing: only a deployment's first instance makes keys. */
export interface KeyFileUse {
  create: boolean;
}

/**
 * Loads the keys named by the configuration. A file named explicitly must exist; the default files
 * in `DATA_DIR/keys/` are created on first start, so a deployment keeps its keys across restarts.
 */
export function loadServiceKeys(config: KeyConfig, logger: Logger): ServiceKeys {
  const signingKey = loadSigningKey(config, logger, { create: true })!;
  return { signing: ed25519Signer(signingKey), atRest: loadAtRestKey(config, logger, { create: true }) };
}

/**
 * The key of `SERVICE_SIGNING_KEY_FILE`, else of `DATA_DIR/keys/service-ed25519.pem`: created when
 * missing and `use.create`; undefined when missing otherwise (an instance joining a deployment
 * signs with the ring's keys and needs no file of its own).
 */
export function loadSigningKey(config: KeyConfig, logger: Logger, use: KeyFileUse): KeyObject | undefined {
  const file = join(config.DATA_DIR, "keys", defaultKeyFiles.signing);
  if (!config.SERVICE_SIGNING_KEY_FILE && !use.create && !existsSync(file)) return undefined;
  const pem = config.SERVICE_SIGNING_KEY_FILE
    ? readConfigured("SERVICE_SIGNING_KEY_FILE", config.SERVICE_SIGNING_KEY_FILE, logger)
    : readOrCreateKeyFile(file, newSigningKeyPem, logger);
  const key = createPrivateKey(pem);
  if (key.asymmetricKeyType !== "ed25519") {
    throw new ConfigError("invalid configuration: SERVICE_SIGNING_KEY_FILE: not an Ed25519 private key");
  }
  return key;
}

const atRestSources = ["AT_REST_KEY_FILE", "AT_REST_KEY", "AT_REST_KEY_COMMAND"] as const;

/**
 * The at-rest key, from whichever of `AT_REST_KEY_FILE`, `AT_REST_KEY` and `AT_REST_KEY_COMMAND`
 * is set (at most one), else from `DATA_DIR/keys/at-rest.key`, created when missing and
 * `use.create`. Throws a one-line ConfigError when none gives a 256-bit hex key.
 */
export function loadAtRestKey(config: KeyConfig, logger: Logger, use: KeyFileUse): AtRestCipher {
  const given = atRestSources.filter((name) => config[name]);
  if (given.length > 1) {
    throw new ConfigError(`invalid configuration: AT_REST_KEY: set one of ${given.join(", ")}, not several`);
  }
  return atRestCipher(parseAtRestKey(readAtRestKey(config, logger, use)));
}

function readAtRestKey(config: KeyConfig, logger: Logger, use: KeyFileUse): string {
  if (config.AT_REST_KEY_FILE) return readConfigured("AT_REST_KEY_FILE", config.AT_REST_KEY_FILE, logger);
  if (config.AT_REST_KEY) return config.AT_REST_KEY;
  if (config.AT_REST_KEY_COMMAND)
    return runKeyCommand(config.AT_REST_KEY_COMMAND, config.AT_REST_KEY_COMMAND_TIMEOUT_SECONDS ?? 30);
  const file = join(config.DATA_DIR, "keys", defaultKeyFiles.atRest);
  if (!use.create && !existsSync(file)) {
    throw new ConfigError(
      `invalid configuration: AT_REST_KEY: this deployment's key ring exists and ${file} does not; give the deployment's at-rest key (AT_REST_KEY_FILE, AT_REST_KEY or AT_REST_KEY_COMMAND)`,
    );
  }
  return readOrCreateKeyFile(file, newAtRestKeyHex, logger);
}

function parseAtRestKey(text: string): Buffer {
  const key = text.trim();
  if (!/^[0-9a-fA-F]{64}$/.test(key)) {
    throw new ConfigError("invalid configuration: AT_REST_KEY: the key must be 64 hex characters (256 bits)");
  }
  return Buffer.from(key, "hex");
}

/**
 * What `AT_REST_KEY_COMMAND` prints (a KMS or secret manager's client), run by `/bin/sh -c` so
 * pipes and quoting work as typed. A failure is one line, with the last line the command wrote to
 * stderr: never anything of its stdout, where a key may be.
 */
export function runKeyCommand(command: string, timeoutSeconds: number): string {
  try {
    return execFileSync("/bin/sh", ["-c", command], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutSeconds * 1000,
      maxBuffer: 64 * 1024,
    });
  } catch (err) {
    throw new ConfigError(
      `invalid configuration: AT_REST_KEY_COMMAND: ${commandFailure(err, timeoutSeconds)}`,
    );
  }
}

function commandFailure(err: unknown, timeoutSeconds: number): string {
  const failure = err as NodeJS.ErrnoException & { status?: number | null; stderr?: string };
  if (failure.code === "ETIMEDOUT") {
    return `did not finish within ${timeoutSeconds} s (AT_REST_KEY_COMMAND_TIMEOUT_SECONDS)`;
  }
  const said = (failure.stderr ?? "").trim().split("\n").pop()?.slice(0, 200);
  const how =
    failure.status != null
      ? `exited with status ${failure.status}`
      : `failed: ${failure.message.split("\n")[0]}`;
  return said ? `${how}: ${said}` : how;
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
