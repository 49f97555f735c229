import { openAsBlob } from "node:fs";
import { readFile } from "node:fs/promises";
import { type Command, Option } from "commander";
import { parseIJson } from "../../core/i-json.js";
import type { KeyRing, RingKey } from "../../core/key-ring.js";
import { verifyStamp } from "../../core/stamp.js";
import { looksLikeProofBundle, type ProofBundle, parseProofBundle } from "../../sdk/src/bundle/bundle.js";
import { isSigstoreBundle } from "../../sdk/src/bundle/sigstore-bundle.js";
import { type BundleCheck, verifyProofBundle } from "../../sdk/src/bundle/verify-bundle.js";
import { clientFor, type RemoteFlags, withRemoteOptions } from "../client.js";
import { UsageError } from "../errors.js";
import { readInput } from "../files.js";
import { verifyOnline } from "../verify-online.js";
import { bundleSummary, exitCodeOf, summary } from "../verify-report.js";
import { verifySigstoreFile } from "../verify-sigstore.js";

export interface VerifyOptions extends RemoteFlags {
  online?: boolean;
  trust?: string[];
  logKey?: string[];
  tsaCa?: string;
  anchorTsaCa?: string;
  keyRing?: string;
  trustedRoot?: string;
}

export function registerVerify(program: Command): void {
  const command = program
    .command("verify")
    .description(
      "verify a stamp: offline (the default, no network) every part a proof bundle holds, or a stamp file's format, signatures and hash; --online also asks the service you name with --url or STAMPD_URL. Exit 0 valid and signed by a known service key, 1 invalid, 2 usage error, 3 signature valid but signer unknown (no --trust, --key-ring or --online)",
    )
    .argument(
      "<file>",
      "a proof bundle (*.stampd.json), a stamp document (stamp_json), a saved StampResponse, or a Sigstore bundle (*.sigstore.json, with the document)",
    )
    .argument("[document]", "the original document, to compare its hash with the stamp's")
    .addOption(new Option("--offline", "verify here with no network (the default)").conflicts("online"))
    .option(
      "--online",
      "check the file here against the key ring of the service --url or STAMPD_URL names (never the file's service_url), then compare with what that service holds",
    )
    .option(
      "--trust <keys...>",
      "service keys (ed25519:<hex>) to accept; without them or a key ring the signer is unknown",
    )
    .option(
      "--log-key <keys...>",
      "log verifier keys to accept; default: the key ring's, else the key the bundle holds",
    )
    .addOption(
      new Option(
        "--key-ring <file>",
        "the deployment's key ring (the JSON of GET /keys, e.g. from stampd keys ring --json): each key trusted for its own period, a revoked key's later signatures refused",
      ).env("STAMPD_KEY_RING"),
    )
    .option(
      "--tsa-ca <pem-file>",
      "CA certificates the RFC 3161 TSA must chain to; default: the key ring's TSA CAs with --key-ring, else the bundle's",
    )
    .option(
      "--trusted-root <file>",
      "a Sigstore bundle: the deployment's Sigstore trusted root (GET /sigstore/trusted_root.json), with --key-ring",
    )
    .option(
      "--anchor-tsa-ca <pem-file>",
      "CA certificate the outside TSA of the rfc3161 anchor must chain to; default: its issuer is not checked",
    );
  withRemoteOptions(command).action(
    async (path: string, documentPath: string | undefined, opts: VerifyOptions) => {
      const text = await readFile(path, "utf8").catch(unreadable(path));
      const document = documentPath
        ? await openAsBlob(documentPath).catch(unreadable(documentPath))
        : undefined;
      const keyRing = opts.keyRing ? await readKeyRing(opts.keyRing) : undefined;
      if (opts.online && command.getOptionValueSource("url") === "default")
        throw new UsageError(
          "--online asks the service you name: give --url or STAMPD_URL (a file's service_url is never asked, since whoever wrote the file chose it)",
        );
      const sigstore = sigstoreBundleIn(text);
      if (sigstore) {
        const bytes = document && new Uint8Array(await document.arrayBuffer());
        return verifySigstoreFile(sigstore, bytes, opts, keyRing);
      }
      const parsed = readStampFile(text);
      // The service asked is the one the user names (checked above): a bundle's service_url is
      // whatever its writer put there, a forger's server included (issue #35).
      if (opts.online) return checkOnline(parsed, document, opts, keyRing);
      if (parsed.bundle) {
        const check = await checkBundle(parsed.bundle, document, opts, keyRing);
        console.log(
          opts.json ? JSON.stringify(check, null, 2) : bundleSummary(parsed.bundle, check, "offline"),
        );
        process.exitCode = exitCodeOf(check.valid, check.signer !== "unknown");
        return;
      }
      const result = await verifyStamp(parsed.stamp, { document, trustedServiceKeys: opts.trust, keyRing });
      const pinned = opts.trust !== undefined || keyRing !== undefined;
      console.log(
        opts.json ? JSON.stringify(result, null, 2) : summary(parsed.stamp, result, pinned, "offline"),
      );
      process.exitCode = exitCodeOf(result.is_valid, pinned);
    },
  );
}

/** `--online`: the file checked here under the named service's key ring (or the user's), then asked. */
async function checkOnline(
  parsed: StampFile,
  document: Blob | undefined,
  opts: VerifyOptions,
  keyRing: RingKey[] | undefined,
): Promise<void> {
  const { stamp } = parsed;
  const stampId = (stamp as { stamp_id?: unknown } | null)?.stamp_id;
  if (typeof stampId !== "string" || typeof stamp !== "object" || stamp === null)
    throw new UsageError("the file names no stamp_id to ask the service about");
  const client = clientFor(opts);
  const ring = keyRing ?? (await client.log.keyRing()).keys;
  const local = parsed.bundle
    ? await checkBundle(parsed.bundle, document, opts, ring)
    : await verifyStamp(stamp, { document, trustedServiceKeys: opts.trust, keyRing: ring });
  return verifyOnline(client, { stampId, stamp, local, document }, opts);
}

export interface StampFile {
  /** The stamp document. */
  stamp: unknown;
  bundle?: ProofBundle;
}

/** The file's Sigstore bundle (docs/sigstore.md), when it is one. */
function sigstoreBundleIn(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return isSigstoreBundle(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A proof bundle, a stamp document, or the `stamp_json` of a saved StampResponse. */
function readStampFile(text: string): StampFile {
  let value: unknown;
  try {
    value = parseIJson(text);
  } catch {
    return { stamp: text }; // verifyStamp reports text that is not I-JSON as an invalid format
  }
  if (looksLikeProofBundle(value)) {
    const bundle = parseBundle(text);
    return { stamp: bundle.stamp.stamp_json, bundle };
  }
  return { stamp: stampDocumentOf(value) };
}

function parseBundle(text: string): ProofBundle {
  try {
    return parseProofBundle(text);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The stamp document in a parsed file: the document itself, or the `stamp_json` of a StampResponse. */
function stampDocumentOf(value: unknown): unknown {
  const wrapped = (value as { stamp_json?: unknown } | null)?.stamp_json;
  return typeof wrapped === "object" && wrapped !== null ? wrapped : value;
}

/** The `keys` of a saved `GET /keys` document. */
async function readKeyRing(path: string): Promise<RingKey[]> {
  const text = (await readInput(path)).toString("utf8");
  let keys: unknown;
  try {
    keys = (parseIJson(text) as Partial<KeyRing> | null)?.keys;
  } catch (err) {
    throw new UsageError(`--key-ring ${path}: ${(err as Error).message}`);
  }
  if (!Array.isArray(keys))
    throw new UsageError(`--key-ring ${path}: not a key ring (the JSON of GET /keys)`);
  return keys;
}

/** `verifyProofBundle` with the command's pins: keys, key ring, CAs. */
export async function checkBundle(
  bundle: ProofBundle,
  document: Blob | undefined,
  opts: VerifyOptions,
  keyRing: RingKey[] | undefined,
): Promise<BundleCheck> {
  const pem = async (file: string | undefined) =>
    file ? (await readInput(file)).toString("utf8") : undefined;
  return verifyProofBundle(bundle, {
    document,
    trustedServiceKeys: opts.trust,
    trustedLogKeys: opts.logKey,
    keyRing,
    trustedTsaCaPem: await pem(opts.tsaCa),
    trustedAnchorTsaCaPem: await pem(opts.anchorTsaCa),
  });
}

const unreadable = (path: string) => (err: NodeJS.ErrnoException) => {
  throw new UsageError(`cannot read ${path}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
};
