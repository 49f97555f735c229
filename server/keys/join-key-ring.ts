import type { KeyObject } from "node:crypto";
import { ConfigError } from "../config.js";
import type { AtRestCipher } from "./at-rest-cipher.js";
import { ed25519Signer } from "./ed25519.js";
import { newRingKey, ringKeyId, ringPrivateKey, SINCE_EVER } from "./key-ring.js";
import type { KeyRingRepository, StoredRingKey } from "./key-ring-repository.js";
import { newTsaRingKey, type TsaKeyAndChain } from "./tsa-keys.js";

/** What an instance brings to the deployment: its configured secrets and log origin. */
export interface Joining {
  repo: KeyRingRepository;
  /** The key of `SERVICE_SIGNING_KEY_FILE` (or the default key file). */
  signingKey: KeyObject;
  atRest: AtRestCipher;
  /** `LOG_ORIGIN` (or its default). */
  origin: string;
  /** The log's size now: a non-empty log keeps its origin. */
  logSize(): Promise<number>;
  now: Date;
}

const AT_REST_CHECK = "at_rest";
const CHECK_TEXT = Buffer.from("stampd at-rest key check");

/**
 * Makes sure this instance holds the deployment's keys before it writes anything, or throws a
 * ConfigError of one line (the process exits non-zero): the at-rest key must open the stored check
 * value, the configured signing key must be one of the ring's service keys, and the configured log
 * origin that of the active log key unless the log is still empty. The first instance of a
 * deployment (an empty ring) registers its keys: the service key, also as the first log key, as
 * the log has always been signed with it.
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
  const { repo, signingKey, atRest, now } = joining;
  const configured = ed25519Signer(signingKey).publicKey;
  if (!(await keysOf(repo, "service")).length) {
    await repo.register(newRingKey("service", signingKey, atRest, { notBefore: SINCE_EVER }));
  }
  const ring = await keysOf(repo, "service");
  const own = ring.find((k) => k.publicKey === configured);
  if (!own) {
    throw new ConfigError(
      `invalid configuration: SERVICE_SIGNING_KEY_FILE: key ${configured} is not in this deployment's key ring (service keys ${ring.map((k) => k.keyId).join(", ")}); start with the deployment's key file, or add this one with stampd keys rotate --kind service --key-file <file>`,
    );
  }
  if (own.state === "revoked") {
    throw new ConfigError(
      `invalid configuration: SERVICE_SIGNING_KEY_FILE: key ${own.keyId} was revoked at ${own.revokedAt!.toISOString()}; start with the key file of a key that is not (now ${now.toISOString()})`,
    );
  }
}

async function joinLog(joining: Joining): Promise<void> {
  const { repo, signingKey, atRest, origin, now } = joining;
  const logKeys = await keysOf(repo, "log");
  if (!logKeys.length) {
    await repo.register(newRingKey("log", signingKey, atRest, { notBefore: SINCE_EVER, origin }));
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
  await repo.rotate(renamed, now);
}

const keysOf = async (repo: KeyRingRepository, kind: StoredRingKey["kind"]) =>
  (await repo.list()).filter((k) => k.kind === kind);

/**
 * The TSA of `DATA_DIR/keys/tsa.pem` joins the ring the same way: the first instance registers it
 * (its key sealed, as every instance signs tokens with the ring's TSA keys), and an instance whose
 * file holds a certificate the ring does not (its tokens would chain to a CA no other instance's
 * `GET /tsa/ca.pem` serves) refuses to start with one line. A file of a retired or revoked TSA key
 * is the deployment's still: the instance signs with the ring's keys, not the file's.
 */
export async function joinTsaCertificate(
  repo: KeyRingRepository,
  atRest: AtRestCipher,
  file: TsaKeyAndChain,
): Promise<void> {
  if (!(await keysOf(repo, "tsa")).length) {
    await repo.register(newTsaRingKey(file, atRest, SINCE_EVER));
  }
  const ring = await keysOf(repo, "tsa");
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
