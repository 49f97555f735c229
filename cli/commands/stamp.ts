import { writeFile } from "node:fs/promises";
import { basename } from "node:path";
import { type Command, Option } from "commander";
import { hashAlgorithms } from "../../core/content-hash.js";
import type { Schemas } from "../../sdk/src/index.js";
import { presets } from "../../server/presets/presets.js";
import { saveBundle } from "../bundle-file.js";
import { clientFor, positiveInteger, type RemoteFlags, withRemoteOptions } from "../client.js";
import { UsageError } from "../errors.js";
import { bundlePaths, fileSizes, total } from "../files.js";
import { anchorList, integerBetween, keyValue } from "../parsers.js";
import { Progress, type ProgressFlags, progressShown, withProgressOptions } from "../progress.js";
import { table } from "../table.js";
import { UploadProgress } from "../upload-progress.js";
import { type HashOnlyFlags, stampHashes } from "./stamp-hashes.js";

interface StampFlags extends RemoteFlags, ProgressFlags, HashOnlyFlags {
  preset?: Schemas["PresetName"];
  anchors?: string;
  trustThreshold?: number;
  docVersion?: string;
  generateFp?: boolean;
  identity?: string;
  out?: string;
  sigstoreOut?: string;
  wait?: WaitUntil;
}

type WaitUntil = "confirmed" | "anchored";

/** Options of `POST /stamps`, which gRPC's BatchStamp does not take. */
const restOnly = [
  "preset",
  "anchors",
  "trustThreshold",
  "docVersion",
  "generateFp",
  "identity",
  "wait",
  "sigstoreOut",
];

/** `--sigstore-out`'s file of a document: beside the proof bundle's name, a Sigstore bundle. */
const sigstoreName = (document: string) => `${basename(document)}.sigstore.json`;

async function stampFiles(files: string[], flags: StampFlags): Promise<void> {
  const sizes = await fileSizes(files);
  const saveAs = flags.out ? await bundlePaths(files, flags.out) : undefined;
  const sigstoreAs = flags.sigstoreOut
    ? await bundlePaths(files, flags.sigstoreOut, sigstoreName)
    : undefined;
  // A Sigstore bundle is made of a confirmed stamp: --sigstore-out waits for one.
  const until = flags.wait ?? (sigstoreAs ? "confirmed" : undefined);
  const bar = new Progress(progressShown(flags), "bytes");
  const upload = bar.shown ? new UploadProgress(bar) : undefined;
  // Loaded only to wait: following the stamp's events beats reading it every 2 s.
  const WebSocket = until ? (await import("ws")).WebSocket : undefined;
  const client = clientFor(flags, { fetch: upload?.fetch, WebSocket });
  const made: Schemas["StampResponse"][] = [];
  bar.start(total(sizes), files[0]!);
  try {
    for (const [i, file] of files.entries()) {
      upload?.begin(`${file} (${i + 1}/${files.length})`, sizes[i]!);
      const stamp = await client.stamps.create({
        file,
        preset: flags.preset,
        anchors: flags.anchors,
        trust_threshold: flags.trustThreshold,
        version: flags.docVersion,
        generate_fp: flags.generateFp,
        identity_id: flags.identity,
      });
      upload?.end();
      // What was read is used, not asked for again: every request is charged to the rate limit.
      // The stamp waitFor read (GET) goes into the bundle as read; create's answer does not, as its
      // stamp_json lists the members in another order than GET's, which `upgrade` compares as text.
      const read = until
        ? await client.stamps.waitFor(stamp.stamp_id, {
            until,
            timeout: flags.timeout * 1000,
            stamp,
          })
        : undefined;
      if (saveAs) await saveBundle(client, stamp.stamp_id, saveAs[i]!, flags.url, read);
      if (sigstoreAs) {
        const bundle = await client.stamps.sigstoreBundle(stamp.stamp_id);
        await writeFile(sigstoreAs[i]!, `${JSON.stringify(bundle, null, 2)}\n`);
      }
      made.push(read ?? stamp);
    }
  } finally {
    // What was stamped before a failure is still reported (and saved).
    bar.stop();
    if (made.length) report(made, files, flags, saveAs);
  }
}

function report(made: Schemas["StampResponse"][], files: string[], flags: StampFlags, saveAs?: string[]) {
  if (flags.json) {
    // One file: the StampResponse itself; several: an array of them.
    console.log(JSON.stringify(files.length === 1 ? made[0] : made, null, 2));
    return;
  }
  const rows = made.map((s, i) => [
    files[i]!,
    s.stamp_id,
    s.status,
    `trust ${s.trust_score}/${s.trust_threshold}${trustNotes(s)}`,
    saveAs ? saveAs[i]! : s.verify_url,
  ]);
  console.log(table(rows));
}

/**
 * Why the score is what it is: not met yet, and any requested anchor this deployment cannot
 * provide (it will never count, so the threshold may stay out of reach: `stampd get` says why).
 */
function trustNotes(stamp: Schemas["StampResponse"]): string {
  const unavailable = stamp.anchors
    .filter((a) => a.status === "unavailable")
    .map((a) => `${a.type} unavailable`);
  const notes = [...(stamp.trust_met ? [] : ["not met"]), ...unavailable];
  return notes.length ? ` (${notes.join(", ")})` : "";
}

export function registerStamp(program: Command): void {
  const command = program
    .command("stamp")
    .summary("stamp files (uploads, or hashes only through gRPC BatchStamp)")
    .description(
      "stamp files: upload each (POST /stamps) and print its stamp; with --hash-only, hash them here and stamp the hashes in gRPC BatchStamp calls",
    )
    .argument("<file...>", "the documents, stamped one after another")
    .addOption(new Option("--preset <name>", "preset to start from").choices(presets.map((p) => p.name)))
    .addOption(
      new Option("--anchors <types>", "comma-separated anchors (log, rfc3161, bitcoin, ethereum)").argParser(
        anchorList,
      ),
    )
    .addOption(
      new Option("--trust-threshold <n>", "trust score the stamp must reach (0-100)").argParser(
        integerBetween(0, 100),
      ),
    )
    .option("--doc-version <text>", "version of the document (default 1.0.0)")
    .option("--generate-fp", "also compute and store the structural fingerprint")
    .option("--no-generate-fp", "no fingerprint even if the preset makes one")
    .option("--identity <identity-id>", "also sign with this identity of your account (needs --api-key)")
    .option(
      "--out <path>",
      "save each proof bundle as <path>/<file name>.stampd.json, or as <path> itself when it ends in .json and one file is stamped (for `stampd verify`, `upgrade`, `info`)",
    )
    .option(
      "--sigstore-out <path>",
      "also save each stamp as a Sigstore bundle, <path>/<file name>.sigstore.json or <path> itself when it ends in .json and one file is stamped (waits until each stamp is confirmed; docs/sigstore.md)",
    )
    .addOption(
      new Option(
        "--wait [until]",
        "wait until each stamp is confirmed (the default) or anchored before printing and saving it; --timeout bounds the wait",
      )
        .choices(["confirmed", "anchored"])
        .preset("confirmed"),
    )
    .option("--hash-only", "send only hashes, computed here, in gRPC BatchStamp calls (no upload)")
    .addOption(
      new Option("--algorithm <name>", "--hash-only: hash algorithm (default sha3-256)").choices(
        hashAlgorithms,
      ),
    )
    .option("--description <text>", "--hash-only: description of every stamp")
    .option("--metadata <key=value>", "--hash-only: metadata of every stamp (repeatable)", keyValue)
    .addOption(
      new Option(
        "--grpc-url <url>",
        "--hash-only: gRPC address of the server (default: the host of --url on port 50051)",
      ).env("STAMPD_GRPC_URL"),
    )
    .addOption(
      new Option(
        "--batch-size <n>",
        "--hash-only: most hashes per BatchStamp call (fewer when the key's items budget holds fewer; the server allows MAX_BATCH_ITEMS)",
      )
        .argParser(positiveInteger)
        .default(1000),
    );
  withProgressOptions(withRemoteOptions(command)).action(async (files: string[], flags: StampFlags) => {
    checkModes(command, flags);
    await (flags.hashOnly ? stampHashes(files, flags) : stampFiles(files, flags));
  });
}

/** Upload options and hash-only options do not mix: each mode takes only what its API does. */
function checkModes(command: Command, flags: StampFlags): void {
  const given = (name: string) => command.getOptionValueSource(name) === "cli";
  if (flags.hashOnly) {
    const wrong = restOnly.filter(given);
    if (wrong.length)
      throw new UsageError(`--hash-only stamps through gRPC, which takes no ${flagNames(wrong)}`);
    return;
  }
  const wrong = ["algorithm", "description", "metadata", "grpcUrl", "batchSize"].filter(given);
  if (wrong.length) throw new UsageError(`${flagNames(wrong)} need --hash-only`);
}

function flagNames(names: string[]): string {
  return names.map((name) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(", ");
}
