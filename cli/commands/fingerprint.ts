import { readFile } from "node:fs/promises";
import { type Command, Option } from "commander";
import { decompositionMethods } from "../../gen/openapi/enums.js";
import type { Schemas } from "../../sdk/src/index.js";
import { clientFor, print, type RemoteFlags, withRemoteOptions } from "../client.js";
import { fileSizes, total } from "../files.js";
import { Progress, type ProgressFlags, progressShown, withProgressOptions } from "../progress.js";
import { table } from "../table.js";
import { UploadProgress } from "../upload-progress.js";

type FingerprintDocument = Schemas["FingerprintDocument"];

interface FingerprintFlags extends RemoteFlags, ProgressFlags {
  method?: Schemas["DecompositionMethod"];
}

/** Fingerprints files through the API, with one upload bar over all of them. */
async function fingerprintFiles(files: string[], flags: FingerprintFlags) {
  const sizes = await fileSizes(files);
  const bar = new Progress(progressShown(flags), "bytes");
  const upload = bar.shown ? new UploadProgress(bar) : undefined;
  const client = clientFor(flags, { fetch: upload?.fetch });
  bar.start(total(sizes), files[0] ?? "");
  try {
    const results: Schemas["FingerprintResponse"][] = [];
    for (const [i, file] of files.entries()) {
      upload?.begin(file, sizes[i]!);
      results.push(await client.fingerprints.create({ file, method: flags.method }));
      upload?.end();
    }
    return results;
  } finally {
    bar.stop();
  }
}

async function fingerprint(file: string, flags: FingerprintFlags): Promise<void> {
  const [result] = await fingerprintFiles([file], flags);
  print(flags, result, () =>
    table([
      ["standard hash", result!.standard_hash],
      ["merkle root", result!.merkle_root],
      ["chunks", `${result!.chunk_count} (tree depth ${result!.tree_depth})`],
      ["entropy", `${result!.entropy.toFixed(4)} bits per byte`],
      ["method", result!.decomposition_method],
      ["shadow scales", result!.shadow_scales.join(", ")],
      ["proofs", result!.proofs_available.join(", ") || "none"],
    ]),
  );
}

/**
 * A fingerprint saved earlier (`stampd fingerprint --json`, or a bare fingerprint document) is
 * read from its `.json` file; any other file is a document to fingerprint.
 */
async function savedFingerprint(path: string): Promise<FingerprintDocument | undefined> {
  if (!path.endsWith(".json")) return undefined;
  const text = await readFile(path, "utf8").catch(() => undefined);
  let value: unknown;
  try {
    value = text === undefined ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
  const doc = (value as { fingerprint_json?: unknown } | undefined)?.fingerprint_json ?? value;
  return (doc as FingerprintDocument | undefined)?.format === "stampd.fingerprint/v1"
    ? (doc as FingerprintDocument)
    : undefined;
}

/** Only the shadows are compared: the chunks (most of a fingerprint's size) are left out of the body. */
function shadowsOnly(doc: FingerprintDocument): FingerprintDocument {
  const { sections: _sections, ...rest } = doc;
  return { ...rest, chunks: [] };
}

async function fingerprintsOf(paths: string[], flags: FingerprintFlags): Promise<FingerprintDocument[]> {
  const saved = await Promise.all(paths.map(savedFingerprint));
  const toMake = paths.filter((_, i) => !saved[i]);
  const made = (await fingerprintFiles(toMake, flags)).map((r) => r.fingerprint_json);
  return saved.map((doc) => doc ?? made.shift()!);
}

async function compare(a: string, b: string, flags: FingerprintFlags): Promise<void> {
  const [fingerprint1, fingerprint2] = await fingerprintsOf([a, b], flags);
  const result = await clientFor(flags).fingerprints.compare({
    fingerprint1: shadowsOnly(fingerprint1!),
    fingerprint2: shadowsOnly(fingerprint2!),
  });
  print(flags, result, () =>
    table([
      ...Object.entries(result.similarities).map(([scale, value]) => [`scale ${scale}`, value.toFixed(4)]),
      ["overall", result.overall_similarity.toFixed(4)],
      ["assessment", result.assessment],
    ]),
  );
}

function methodOption(): Option {
  return new Option("--method <name>", "how documents are cut into chunks (default hierarchical)").choices(
    decompositionMethods,
  );
}

export function registerFingerprints(program: Command): void {
  const one = program
    .command("fingerprint")
    .summary("structural fingerprint of a file")
    .description(
      "structural fingerprint of a file (POST /fingerprint; nothing is stored); save it with --json to compare later",
    )
    .argument("<file>", "the document")
    .addOption(methodOption());
  withProgressOptions(withRemoteOptions(one)).action(fingerprint);

  const two = program
    .command("compare")
    .summary("structural similarity of two documents or saved fingerprints")
    .description(
      "structural similarity of two documents (POST /fingerprint/compare); each may be a file to fingerprint or a .json fingerprint saved by `stampd fingerprint --json`",
    )
    .argument("<a>", "a document, or a saved fingerprint (.json)")
    .argument("<b>", "another document, or a saved fingerprint (.json)")
    .addOption(methodOption());
  withProgressOptions(withRemoteOptions(two)).action(compare);
}
