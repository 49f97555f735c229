import { openAsBlob } from "node:fs";
import { readFile } from "node:fs/promises";
import { type Command, Option } from "commander";
import { parseIJson } from "../../core/i-json.js";
import type { KeyRing, RingKey } from "../../core/key-ring.js";
import { verifyStamp } from "../../core/stamp.js";
import type { VerifyResult } from "../../core/types.js";
import { looksLikeProofBundle, type ProofBundle, parseProofBundle } from "../../sdk/src/bundle/bundle.js";
import { type BundleCheck, verifyProofBundle } from "../../sdk/src/bundle/verify-bundle.js";
import { clientFor, type RemoteFlags, withRemoteOptions } from "../client.js";
import { UsageError } from "../errors.js";
import { readInput } from "../files.js";

interface VerifyOptions extends RemoteFlags {
  online?: boolean;
  trust?: string[];
  logKey?: string[];
  tsaCa?: string;
  anchorTsaCa?: string;
  keyRing?: string;
}

export function registerVerify(program: Command): void {
  const command = program
    .command("verify")
    .description(
      "verify a stamp: offline (the default, no network) every part a proof bundle holds, or a stamp file's format, signatures and hash; --online asks the server (POST /stamps/{id}/verify)",
    )
    .argument(
      "<file>",
      "a proof bundle (*.stampd.json), a stamp document (stamp_json) or a saved StampResponse",
    )
    .argument("[document]", "the original document, to compare its hash with the stamp's")
    .addOption(new Option("--offline", "verify here with no network (the default)").conflicts("online"))
    .option("--online", "ask the server that made the stamp (its URL from the bundle, or --url)")
    .option("--trust <keys...>", "service keys (ed25519:<hex>) to accept; default: the key the stamp embeds")
    .option("--log-key <keys...>", "log verifier keys to accept; default: the key the bundle holds")
    .option(
      "--key-ring <file>",
      "the deployment's key ring (the JSON of GET /keys, e.g. from stampd keys ring --json): each key trusted for its own period",
    )
    .option(
      "--tsa-ca <pem-file>",
      "CA certificates the RFC 3161 TSA must chain to; default: the key ring's TSA CAs with --key-ring, else the bundle's",
    )
    .option(
      "--anchor-tsa-ca <pem-file>",
      "CA certificate the outside TSA of the rfc3161 anchor must chain to; default: its issuer is not checked",
    );
  withRemoteOptions(command).action(
    async (path: string, documentPath: string | undefined, opts: VerifyOptions) => {
      const parsed = readStampFile(await readFile(path, "utf8").catch(unreadable(path)));
      if (opts.online) {
        const urlGiven = command.getOptionValueSource("url") !== "default";
        return verifyOnline(
          parsed,
          documentPath,
          urlGiven ? opts : { ...opts, url: parsed.bundle?.service_url ?? opts.url },
        );
      }
      const document = documentPath
        ? await openAsBlob(documentPath).catch(unreadable(documentPath))
        : undefined;
      const keyRing = opts.keyRing ? await readKeyRing(opts.keyRing) : undefined;
      if (parsed.bundle) return verifyBundle(parsed.bundle, document, opts, keyRing);
      const result = await verifyStamp(parsed.stamp, { document, trustedServiceKeys: opts.trust, keyRing });
      console.log(
        opts.json
          ? JSON.stringify(result, null, 2)
          : summary(parsed.stamp, result, opts.trust !== undefined || keyRing !== undefined, "offline"),
      );
      process.exitCode = result.is_valid ? 0 : 1;
    },
  );
}

interface StampFile {
  /** The stamp document. */
  stamp: unknown;
  bundle?: ProofBundle;
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
  const keys = (JSON.parse(text) as Partial<KeyRing> | null)?.keys;
  if (!Array.isArray(keys))
    throw new UsageError(`--key-ring ${path}: not a key ring (the JSON of GET /keys)`);
  return keys;
}

async function verifyBundle(
  bundle: ProofBundle,
  document: Blob | undefined,
  opts: VerifyOptions,
  keyRing: RingKey[] | undefined,
): Promise<void> {
  const pem = async (file: string | undefined) =>
    file ? (await readInput(file)).toString("utf8") : undefined;
  const check = await verifyProofBundle(bundle, {
    document,
    trustedServiceKeys: opts.trust,
    trustedLogKeys: opts.logKey,
    keyRing,
    trustedTsaCaPem: await pem(opts.tsaCa),
    trustedAnchorTsaCaPem: await pem(opts.anchorTsaCa),
  });
  console.log(opts.json ? JSON.stringify(check, null, 2) : bundleSummary(bundle, check));
  process.exitCode = check.valid ? 0 : 1;
}

function bundleSummary(bundle: ProofBundle, check: BundleCheck): string {
  const { verification: v } = check;
  const width = Math.max(...check.pieces.map((p) => p.name.length));
  return [
    `stamp ${bundle.stamp.stamp_id}: ${check.valid ? "VALID" : "INVALID"} (offline, proof bundle saved ${bundle.saved_at})`,
    ...check.pieces.map((p) => `  ${p.name.padEnd(width)}  ${p.status.padEnd(10)} ${p.detail}`),
    `  ${"trust score".padEnd(width)}  ${v.trust_score} of ${v.trust_threshold} required (${v.trust_met ? "met" : "not met"})`,
  ].join("\n");
}

async function verifyOnline(
  parsed: StampFile,
  documentPath: string | undefined,
  opts: VerifyOptions,
): Promise<void> {
  const stampId = (parsed.stamp as { stamp_id?: unknown } | null)?.stamp_id;
  if (typeof stampId !== "string") throw new UsageError("the file names no stamp_id to ask the server about");
  const file = documentPath ? await openAsBlob(documentPath).catch(unreadable(documentPath)) : undefined;
  const result = await clientFor(opts).verify.stamp(stampId, file ? { file } : {});
  console.log(
    opts.json ? JSON.stringify(result, null, 2) : summary(parsed.stamp, result, true, `online, ${opts.url}`),
  );
  process.exitCode = result.is_valid ? 0 : 1;
}

function summary(stamp: unknown, result: VerifyResult, keyPinned: boolean, how: string): string {
  const { details } = result;
  const id = (stamp as { stamp_id?: unknown } | null)?.stamp_id;
  const anchors = details.anchors.map((a) => `${a.type} ${a.status}`).join(", ") || "none requested";
  const offline = how === "offline";
  const lines = [
    `stamp ${typeof id === "string" ? id : "(unknown id)"}: ${result.is_valid ? "VALID" : "INVALID"} (${how})`,
    `  format             ${details.format}`,
    `  service signature  ${details.service_signature}${keyPinned ? "" : " (key not pinned; --trust <key> requires a known service key)"}`,
    `  author signature   ${details.author_signature}`,
    `  content hash       ${details.content_hash}`,
    `  anchors            ${anchors}${offline && details.anchors.length ? " (offline: live states not checked; a proof bundle holds them)" : ""}`,
    `  trust score        ${result.trust_score} of ${result.trust_threshold} required (${result.trust_met ? "met" : "not met"})`,
  ];
  if (details.failures.length) lines.push("failures:", ...details.failures.map((f) => `  - ${f}`));
  return lines.join("\n");
}

const unreadable = (path: string) => (err: NodeJS.ErrnoException) => {
  throw new UsageError(`cannot read ${path}: ${err.code === "ENOENT" ? "no such file" : err.message}`);
};
