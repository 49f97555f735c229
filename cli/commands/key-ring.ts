import { createPrivateKey } from "node:crypto";
import { readFileSync } from "node:fs";
import { type Command, Option } from "commander";
import { systemClock } from "../../server/clock.js";
import { loadConfig } from "../../server/config.js";
import { checkAtRestKey } from "../../server/keys/join-key-ring.js";
import { publishedKey } from "../../server/keys/key-ring.js";
import { type RotationPorts, revokeKey, rotateKey } from "../../server/keys/key-rotation.js";
import { loadAtRestKey } from "../../server/keys/service-keys.js";
import { readTsaCredentials } from "../../server/keys/tsa-keys.js";
import { openStore } from "../../server/store/open.js";
import { UsageError } from "../errors.js";
import { cliLogger } from "../logger.js";
import { requireExisting, storeTarget } from "../store-target.js";
import { table } from "../table.js";

/** The kinds of keys the ring holds: stamps and batches, checkpoints, RFC 3161 tokens. */
const signingKinds = ["service", "log", "tsa"] as const;
type SigningKind = (typeof signingKinds)[number];

/**
 * Opens the server's store with the server's configuration (the at-rest key must be the
 * deployment's: it seals the new keys), runs `fn`, and closes it. The ring exists once the
 * service has started on the store.
 */
async function withRing<T>(fn: (ports: RotationPorts) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const target = await storeTarget(config);
  requireExisting(`stampd store at ${target.description}`, target.exists, false, config);
  // Never a new key file: the ring exists, and its at-rest key is the one to bring.
  const atRest = loadAtRestKey(config, cliLogger(config.LOG_LEVEL), { create: false });
  const store = await openStore(config);
  try {
    await store.migrate();
    if (!(await store.keyRing.list()).length) {
      throw new UsageError(`the key ring at ${target.description} is empty: start the service once first`);
    }
    await checkAtRestKey({ repo: store.keyRing, atRest });
    const overlapMs = 2 * config.KEY_RING_REFRESH_SECONDS * 1000;
    // The deployment's clock (PostgreSQL's, which its instances follow), so a new key's period
    // starts when the instances' clock says it does.
    const clock = store.clock ?? systemClock;
    const result = await fn({ repo: store.keyRing, atRest, clock, overlapMs });
    console.error(
      `stampd: wrote to the ${target.description}; instances sign with a rotated-in key within ${config.KEY_RING_REFRESH_SECONDS} s (KEY_RING_REFRESH_SECONDS) and answer nothing signed by a revoked key from now on`,
    );
    return result;
  } finally {
    await store.close();
  }
}

function readKeyFile(path: string) {
  try {
    const key = createPrivateKey(readFileSync(path, "utf8"));
    if (key.asymmetricKeyType === "ed25519") return key;
  } catch (err) {
    throw new UsageError(`cannot read --key-file ${path}: ${(err as Error).message}`);
  }
  throw new UsageError(`--key-file ${path}: not an Ed25519 private key`);
}

/** `--cert-file` and `--key-file` of a TSA rotation, checked, or undefined for a fresh TSA. */
async function tsaFiles(flags: RotateFlags) {
  if (!flags.certFile && !flags.keyFile) return undefined;
  if (!flags.certFile || !flags.keyFile) {
    throw new UsageError(
      "--kind tsa takes --cert-file and --key-file together (or neither: a fresh key and CA)",
    );
  }
  try {
    return await readTsaCredentials(flags.certFile, flags.keyFile);
  } catch (err) {
    throw new UsageError(
      `cannot use --cert-file ${flags.certFile} --key-file ${flags.keyFile}: ${(err as Error).message}`,
    );
  }
}

interface RotateFlags {
  kind: SigningKind;
  keyFile?: string;
  certFile?: string;
  origin?: string;
  json?: boolean;
}

async function rotate(flags: RotateFlags) {
  if (flags.origin && flags.kind !== "log") throw new UsageError("--origin applies to --kind log only");
  if (flags.certFile && flags.kind !== "tsa") throw new UsageError("--cert-file applies to --kind tsa only");
  const tsa = flags.kind === "tsa" ? await tsaFiles(flags) : undefined;
  const privateKey = flags.keyFile && flags.kind !== "tsa" ? readKeyFile(flags.keyFile) : undefined;
  const { active, retired } = await withRing((ports) =>
    rotateKey(ports, flags.kind, { privateKey, origin: flags.origin, tsa }),
  );
  if (flags.json) {
    console.log(
      JSON.stringify({ active: publishedKey(active), retired: retired && publishedKey(retired) }, null, 2),
    );
    return;
  }
  const shown = active.kind === "tsa" ? "(certificate chain: stampd keys ring --json)" : active.publicKey;
  console.log(`active  ${active.kind} key ${active.keyId} ${shown}`);
  if (retired)
    console.log(
      `retired ${retired.kind} key ${retired.keyId}, valid for what it signed until ${retired.notAfter!.toISOString()}`,
    );
}

/**
 * `stampd keys revoke <key-id> --kind …`: a ring key, not an API key. One transaction revokes
 * every role of its key material and hands the active ones to fresh keys (issue #35), so an
 * interrupted command leaves the ring as it was or fully revoked, never half.
 */
export async function revokeRingKey(keyId: string, flags: { kind: string; reason: string; at?: string }) {
  if (!(signingKinds as readonly string[]).includes(flags.kind)) {
    throw new UsageError(`--kind ${flags.kind}: a ring key's kind is one of ${signingKinds.join(", ")}`);
  }
  const at = flags.at === undefined ? undefined : new Date(flags.at);
  if (at && Number.isNaN(at.getTime())) throw new UsageError(`--at ${flags.at}: not a date-time`);
  const outcome = await withRing((ports) =>
    revokeKey(ports, flags.kind as SigningKind, keyId, { reason: flags.reason, at }),
  );
  if (!outcome) throw new UsageError(`no ${flags.kind} key ${keyId} in the key ring`);
  for (const key of outcome.activated) console.log(`rotated: ${key.kind} key ${key.keyId} is active now`);
  for (const key of outcome.revoked) {
    console.log(
      `revoked ${key.kind} key ${key.keyId}: what it signed from ${key.revokedAt!.toISOString()} on is not trusted`,
    );
  }
  if (outcome.activated.length) {
    console.error(
      'stampd: instances answer nothing more signed by the revoked key; key files holding it are stale (instances start with the ring\'s active key): delete them (docs/operations.md "Keys")',
    );
  }
}

async function list(flags: { json?: boolean }) {
  const keys = await withRingRead();
  if (flags.json) {
    console.log(JSON.stringify({ keys }, null, 2));
    return;
  }
  const header = ["KIND", "KEY ID", "STATE", "NOT BEFORE", "NOT AFTER", "REVOKED"];
  const rows = keys.map((k) => [
    k.kind,
    k.key_id,
    k.state,
    k.not_before,
    k.not_after ?? "-",
    k.revoked_at ?? "-",
  ]);
  console.log(table([header, ...rows]));
}

/** The ring as `GET /keys` publishes it, read from the store without any key. */
async function withRingRead() {
  const config = loadConfig();
  const target = await storeTarget(config);
  requireExisting(`stampd store at ${target.description}`, target.exists, false, config);
  const store = await openStore(config);
  try {
    await store.migrate();
    return (await store.keyRing.list()).map(publishedKey);
  } finally {
    await store.close();
  }
}

/** `stampd keys ring` and `stampd keys rotate`: the deployment's signing keys (docs/operations.md "Keys"). */
export function registerKeyRing(keys: Command): void {
  keys
    .command("ring")
    .description("list the deployment's key ring: every service, log and TSA key, its period and state")
    .option("--json", "print JSON (the document GET /keys serves)")
    .action(list);
  keys
    .command("rotate")
    .description(
      "make a new service, log or TSA key active and retire the old one (what it signed stays valid)",
    )
    .addOption(new Option("--kind <kind>", "which key").choices(signingKinds).makeOptionMandatory())
    .option(
      "--key-file <pem>",
      "the new key (Ed25519 PKCS#8 PEM; --kind tsa: ECDSA P-256, with --cert-file); default: a fresh key",
    )
    .option(
      "--cert-file <pem>",
      "--kind tsa: the new key's time-stamping certificate then its CA chain; default: a fresh CA issues one",
    )
    .option("--origin <origin>", "log keys: move the log to this origin (then set LOG_ORIGIN to it)")
    .option("--json", "print JSON")
    .action(rotate);
}
