import type { KeyObject } from "node:crypto";
import { ConfigError } from "../config.js";
import type { Logger } from "../logger.js";
import type { AtRestCipher } from "./at-rest-cipher.js";
import { ed25519Signer } from "./ed25519.js";
import { generateEd25519, newRingKey, ringKeyId, ringPrivateKey, SINCE_EVER } from "./key-ring.js";
import type { KeyRingRepository, StoredRingKey } from "./key-ring-repository.js";
import { newTsaRingKey, type TsaKeyAndChain } from "./tsa-keys.js";

/** What an instance brings to the deployment: its configured secrets and log origin. */
export interface Joining {
  repo: KeyRingRepository;
  /**
   * The key of `SERVICE_SIGNING_KEY_FILE` (or the default key file); absent for an instance that
   * joins a deployment with the at-rest key alone and signs with the ring's keys.
   */
  signingKey?: KeyObject;
  atRest: AtRestCipher;
  /** `LOG_ORIGIN` (or its default). */
  origin: string;
  /** The log's size now: a non-empty log keeps its origin. */
  logSize(): Promise<number>;
  now: Date;
  logger: Logger;
}

const AT_REST_CHECK = "at_rest";
const CHECK_TEXT = Buffer.from("stampd at-rest key check");

/**
 * Makes sure this instance holds the deployment's keys before it writes anything, or throws a
 * ConfigError of one line (the process exits non-zero): the at-rest key must open the stored check
 * value, a configured signing key must be one of the ring's service keys, and the configured log
 * origin that of the active log key unless the log is still empty. The first instance of a
 * deployment (an empty ring) registers its keys: the configured service key, and a log key of its
 * own (issue #35: one key material per role, so revoking one revokes nothing else).
 */
export async function joinKeyRing(joining: Joining): Promise<void> {
  await checkAtRestKey(joining);
  await joinServiceKeys(joining);
  await joinLog(joining);
}

/**
 * Throws a one-line ConfigError unless `atRest` opens the deployment's stored check value (the
 * first instance stores it): a wrong key is caught before it seals anything no other instance opens.
 */
export async function checkAtRestKey({ repo, atRest }: Pick<Joining, "repo" | "atRest">): Promise<void> {
  if (!(await repo.check(AT_REST_CHECK)))
    await repo.saveCheck(AT_REST_CHECK, atRest.seal(CHECK_TEXT, AT_REST_CHECK));
  try {
    atRest.open((await repo.check(AT_REST_CHECK))!, AT_REST_CHECK);
  } catch {
    throw new ConfigError(
      "invalid configuration: AT_REST_KEY: not this deployment's at-rest key (it cannot open the stored check value); start with the key every other instance uses",
    );
  }
}

async function joinServiceKeys(joining: Joining): Promise<void> {
  const { repo, signingKey, atRest } = joining;
  if (!(await keysOf(repo, "service")).length) {
    if (!signingKey)
      throw new ConfigError(
        "invalid configuration: SERVICE_SIGNING_KEY_FILE: the key ring has no service key to join with; give the deployment's key file",
      );
    await repo.register(newRingKey("service", signingKey, atRest, { notBefore: SINCE_EVER }));
  }
  if (!signingKey) return;
  const configured = ed25519Signer(signingKey).publicKey;
  const ring = await keysOf(repo, "service");
  const own = ring.find((k) => k.publicKey === configured);
  if (!own) {
    throw new ConfigError(
      `invalid configuration: SERVICE_SIGNING_KEY_FILE: key ${configured} is not in this deployment's key ring (service keys ${ring.map((k) => k.keyId).join(", ")}); start with the deployment's key file, or add this one with stampd keys rotate --kind service --key-file <file>`,
    );
  }
  // A file left behind by a rotation or a revocation is the deployment's still: the instance signs
  // with the ring's active key, so a revocation never stops a restart (issue #35).
  if (own.state !== "active") {
    const active = ring.find((k) => k.state === "active");
    joining.logger.warn(
      { keyId: own.keyId, state: own.state, revokedAt: own.revokedAt, activeKeyId: active?.keyId },
      `the signing key file is stale: service key ${own.keyId} is ${own.state}; signing with the key ring's active service key ${active?.keyId}. Replace or remove the file (docs/operations.md "Keys")`,
    );
  }
}

async function joinLog(joining: Joining): Promise<void> {
  const { repo, atRest, origin, now } = joining;
  const logKeys = await keysOf(repo, "log");
  if (!logKeys.length) {
    await repo.register(
      newRingKey("log", await firstLogKey(joining), atRest, { notBefore: SINCE_EVER, origin }),
    );
    return;
  }
  const active = logKeys.find((k) => k.state === "active");
  if (!active || active.origin === origin) return;
  const size = await joining.logSize();
  if (size > 0) {
    throw new ConfigError(
      `invalid configuration: LOG_ORIGIN: ${origin} is not the log's origin ${active.origin} (the log has ${size} entries and its checkpoints are pinned by that name); set LOG_ORIGIN=${active.origin}, or move the log with stampd keys rotate --kind log --origin ${origin}`,
    );
  }
  // An empty log has no checkpoint anyone pinned: it takes the new name with the key it had (a
  // new key id: a log key's id follows its verifier key, which names the origin).
  const renamed = newRingKey("log", ringPrivateKey(active, atRest), atRest, { notBefore: now, origin });
  await repo.rotate(renamed, { now: () => now, overlapMs: 0 });
}

/**
 * The first log key: a key of its own, unless the log already has checkpoints (a deployment from
 * before the ring kept log keys), which the service key signed and which must keep verifying.
 */
async function firstLogKey({ repo, atRest, logSize }: Joining): Promise<KeyObject> {
  if ((await logSize()) === 0) return generateEd25519();
  const service = (await keysOf(repo, "service")).find((k) => k.state === "active")!;
  return ringPrivateKey(service, atRest);
}

const keysOf = async (repo: KeyRingRepository, kind: StoredRingKey["kind"]) =>
  (await repo.list()).filter((k) => k.kind === kind);

/**
 * The TSA of `DATA_DIR/keys/tsa.pem` joins the ring the same way: the first instance registers it
 * (its key sealed, as every instance signs tokens with the ring's TSA keys), and an instance whose
 * file holds a certificate the ring does not (its tokens would chain to a CA no other instance's
 * `GET /tsa/ca.pem` serves) refuses to start with one line. A file of a retired or revoked TSA key
 * is the deployment's still: the instance signs with the ring's keys, not the file's. An instance
 * joining without the file (`file` undefined) takes every TSA key from the ring.
 */
export async function joinTsaCertificate(
  repo: KeyRingRepository,
  atRest: AtRestCipher,
  file: TsaKeyAndChain | undefined,
): Promise<void> {
  if (!(await keysOf(repo, "tsa")).length) {
    if (!file) throw new Error("the first TSA key of a key ring comes from DATA_DIR/keys/tsa.pem");
    await repo.register(newTsaRingKey(file, atRest, SINCE_EVER));
  }
  const ring = await keysOf(repo, "tsa");
  if (!file) return requireSealedTsaKeys(ring);
  const own = ring.find((k) => k.publicKey === file.chainPem);
  if (!own) {
    throw new ConfigError(
      `invalid configuration: DATA_DIR: keys/tsa.pem holds TSA certificate ${ringKeyId(file.chainPem)}, which is not in this deployment's key ring (TSA certificates ${ring.map((k) => k.keyId).join(", ")}); copy tsa.pem from the deployment's keys folder`,
    );
  }
  // Registered before the ring kept TSA keys: the key is in the file only, and every instance
  // needs it to sign tokens dated in its period once the TSA is rotated.
  if (!own.sealedPrivateKey) {
    const sealed = newTsaRingKey(file, atRest, own.notBefore).sealedPrivateKey!;
    await repo.sealPrivateKey("tsa", own.keyId, sealed);
  }
}

/** A TSA key registered before the ring kept TSA keys is in its first instance's tsa.pem only. */
function requireSealedTsaKeys(ring: StoredRingKey[]): void {
  const unsealed = ring.find((k) => !k.sealedPrivateKey && k.state !== "revoked");
  if (unsealed) {
    throw new ConfigError(
      `invalid configuration: DATA_DIR: the key ring holds no private key for TSA certificate ${unsealed.keyId} yet; start the instance whose keys/tsa.pem holds it once, or copy that tsa.pem here`,
    );
  }
}
