import { createReadStream } from "node:fs";
import { type Command, Option } from "commander";
import { hashAlgorithms } from "../../core/content-hash.js";
import type { HashAlgorithm } from "../../core/types.js";
import type { Schemas } from "../../sdk/src/index.js";
import { createHasher } from "../../server/hashing/hasher.js";
import { clientFor, positiveInteger, type RemoteFlags, withRemoteOptions } from "../client.js";
import { UsageError } from "../errors.js";
import { fileSizes } from "../files.js";
import { table } from "../table.js";

interface SearchFlags extends RemoteFlags {
  hash?: string;
  file?: string;
  algorithm?: HashAlgorithm;
  limit: number;
  cursor?: string;
}

type SearchPage = Schemas["StampSearchPage"];

/**
 * `stampd search --hash <alg:hex>` or `--file <path>`: the stamps of a document, newest first
 * (GET /stamps?hash=). A file is hashed here, never uploaded: with `--algorithm`, with that one;
 * without, with every supported algorithm, so a stamp made with any of them is found.
 */
async function search(flags: SearchFlags): Promise<void> {
  const hashes = await hashesToSearch(flags);
  const client = clientFor(flags);
  const pages: SearchPage[] = [];
  for (const hash of hashes) {
    const page = await client.stamps.search({ hash, limit: flags.limit, cursor: flags.cursor });
    pages.push({ hash: page.hash, items: page.items, limit: page.limit, next_cursor: page.next_cursor });
  }
  if (flags.json) console.log(JSON.stringify(flags.hash ? pages[0] : pages, null, 2));
  else console.log(describe(pages, flags.file));
}

/** What to add to the command line for the next page of `page`. */
function nextPageHint(page: SearchPage, file?: string): string {
  const algorithm = file ? `--algorithm ${page.hash.split(":")[0]} ` : "";
  return `more stamps of ${page.hash}: add ${algorithm}--cursor ${page.next_cursor}`;
}

async function hashesToSearch(flags: SearchFlags): Promise<string[]> {
  if ((flags.hash === undefined) === (flags.file === undefined)) {
    throw new UsageError("give either --hash <algorithm:hex> or --file <path>");
  }
  if (flags.hash !== undefined) {
    if (flags.algorithm) throw new UsageError("--algorithm goes with --file; --hash names its own");
    return [flags.hash];
  }
  await fileSizes([flags.file!]);
  // A cursor continues one hash's list: searching every algorithm at once has none to continue.
  if (flags.cursor && !flags.algorithm) throw new UsageError("--cursor with --file needs --algorithm");
  const algorithms = flags.algorithm ? [flags.algorithm] : hashAlgorithms;
  const digests = await hashFile(flags.file!, algorithms);
  return algorithms.map((algorithm, i) => `${algorithm}:${digests[i]}`);
}

/** The file's digest with each algorithm, in one read. */
async function hashFile(path: string, algorithms: readonly HashAlgorithm[]): Promise<string[]> {
  const hashers = await Promise.all(algorithms.map(createHasher));
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const hasher of hashers) hasher.update(chunk);
  }
  return hashers.map((hasher) => hasher.digest());
}

/** One table of every stamp found (newest first per hash), or a line saying there is none. */
function describe(pages: SearchPage[], file?: string): string {
  const found = pages.filter((page) => page.items.length);
  if (!found.length) {
    const what = file ? `${file} (${pages.map((p) => p.hash.split(":")[0]).join(", ")})` : pages[0]!.hash;
    return `no stamps of ${what}`;
  }
  const rows = [["STAMP", "CREATED", "HASH", "VERIFY"]];
  // An upload is found by its SHA3-256 and by its SHA-256 (docs/stamps.md): listed once, under the
  // first, which is the hash its stamp signs.
  const listed = new Set<string>();
  for (const page of found) {
    for (const item of page.items) {
      if (listed.has(item.stamp_id)) continue;
      listed.add(item.stamp_id);
      rows.push([item.stamp_id, item.created_at, page.hash, item.verify_url]);
    }
  }
  const more = found.filter((page) => page.next_cursor !== null).map((page) => nextPageHint(page, file));
  return [table(rows), ...more].join("\n");
}

export function registerSearch(program: Command): void {
  const command = program
    .command("search")
    .description("find the stamps of a document by its hash, newest first (the file is hashed here)")
    .option("--hash <algorithm:hex>", "the document's hash, e.g. sha256:9f86…")
    .option("--file <path>", "hash this file here (nothing is uploaded) and search for it")
    .addOption(
      new Option(
        "--algorithm <name>",
        "with --file: hash with this one only (default: each supported)",
      ).choices(hashAlgorithms),
    )
    .addOption(
      new Option("--limit <n>", "stamps per hash, at most 500").argParser(positiveInteger).default(50),
    )
    .option("--cursor <cursor>", "continue after this cursor (printed when there are more)");
  withRemoteOptions(command).action(search);
}
