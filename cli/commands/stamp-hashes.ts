import { setTimeout as sleep } from "node:timers/promises";
import { create, toJson } from "@bufbuild/protobuf";
import { BatchStampResponseSchema } from "../../gen/proto/svc/v1/stamp_pb.js";
import {
  type GrpcBatchStampResponse,
  type GrpcStamp,
  GrpcStampStatus,
  RateLimitError,
  type Schemas,
  type StampdClient,
} from "../../sdk/src/index.js";
import { saveBundle } from "../bundle-file.js";
import { clientFor, grpcUrlOf, type RemoteFlags, waitLine } from "../client.js";
import { bundlePaths, fileSizes, total } from "../files.js";
import { hashLocally } from "../local-hash.js";
import { Progress, type ProgressFlags, progressShown } from "../progress.js";
import { table } from "../table.js";

export interface HashOnlyFlags {
  hashOnly?: boolean;
  algorithm?: Schemas["HashAlgorithm"];
  description?: string;
  metadata?: Record<string, string>;
  /** Absent: derived from `--url` (`grpcUrlOf`). */
  grpcUrl?: string;
  batchSize: number;
}

type Flags = RemoteFlags & ProgressFlags & HashOnlyFlags & { out?: string };

/** The most items one charge of the caller's bulk items budget may hold (stamp.proto, Rate limiting). */
const ITEMS_LIMIT = "x-ratelimit-items-limit";

/**
 * `stampd stamp --hash-only`: hashes every file here (one progress bar over all bytes), then
 * stamps the hashes through gRPC BatchStamp (a bar over the items). What was stamped is printed
 * even when a later batch fails.
 */
export async function stampHashes(files: string[], flags: Flags): Promise<void> {
  const sizes = await fileSizes(files);
  const saveAs = flags.out ? await bundlePaths(files, flags.out) : undefined;
  const algorithm = flags.algorithm ?? "sha3-256";
  const shown = progressShown(flags);
  const hashes = await hashAll(files, sizes, algorithm, shown);
  const client = clientFor(flags, { grpcUrl: flags.grpcUrl ?? grpcUrlOf(flags.url) });
  const made = create(BatchStampResponseSchema);
  try {
    await batchStamp(client, hashes, flags, shown, made);
  } catch (err) {
    // What was stamped before the failure is reported all the same.
    if (made.stamps.length) report(files, hashes, made, flags);
    throw err;
  }
  report(files, hashes, made, flags);
  // BatchStamp answers no stamp document: the bundle gathers it over REST, to verify offline later.
  if (saveAs) {
    for (const [i, stamp] of byFile(hashes, made.stamps).entries()) {
      if (stamp) await saveBundle(client, stamp.id, saveAs[i]!, flags.url);
    }
  }
  if (made.failedCount > 0) {
    console.error(`stampd: ${made.failedCount} of ${files.length} hashes were not stamped`);
    process.exitCode = 1;
  }
}

async function hashAll(
  files: string[],
  sizes: number[],
  algorithm: Schemas["HashAlgorithm"],
  shown: boolean,
): Promise<string[]> {
  const bar = new Progress(shown, "bytes");
  bar.start(total(sizes), "hashing");
  const hashes: string[] = [];
  try {
    for (const [i, file] of files.entries()) {
      bar.update(total(sizes.slice(0, i)), `hashing ${file} (${i + 1}/${files.length})`);
      const { hash } = await hashLocally(file, algorithm, (n) => bar.advance(n));
      hashes.push(`${algorithm}:${hash}`);
    }
  } finally {
    bar.stop();
  }
  return hashes;
}

/**
 * BatchStamp calls of at most `--batch-size` hashes, and at most what one charge of the key's
 * bulk items budget holds (its `x-ratelimit-items-limit`), merged into `made` as they are answered.
 * A batch the budget does not hold now waits out the pushback the server asks for, as REST waits
 * on a 429 (the SDK waits its retries; a refusal still standing after them is waited out here
 * too), each wait said on stderr; a batch larger than one charge may hold is sent again at the
 * size the refusal names.
 */
async function batchStamp(
  client: StampdClient,
  hashes: string[],
  flags: Flags,
  shown: boolean,
  made: GrpcBatchStampResponse,
): Promise<void> {
  const bar = new Progress(shown, "items");
  bar.start(hashes.length, "stamping");
  let size = flags.batchSize;
  const resize = (headers: Headers | undefined) => {
    const most = Number(headers?.get(ITEMS_LIMIT));
    if (most > 0) size = Math.min(flags.batchSize, most);
  };
  try {
    for (let at = 0; at < hashes.length; ) {
      const items = hashes.slice(at, at + size).map((contentHash) => ({
        contentHash,
        description: flags.description,
        metadata: flags.metadata,
      }));
      let answer: GrpcBatchStampResponse;
      try {
        answer = await client.grpc.batchStamp(items, { onHeader: resize });
      } catch (err) {
        if (!(err instanceof RateLimitError)) throw err;
        const before = size;
        resize(err.headers);
        if (err.retryAfter === undefined && size < before) continue; // over one charge: smaller
        if (err.retryAfter === undefined) throw err;
        const delayMs = err.retryAfter * 1000;
        console.error(waitLine({ error: err, delayMs, retry: 0 }));
        await sleep(delayMs);
        continue;
      }
      made.stamps.push(...answer.stamps);
      made.successCount += answer.successCount;
      made.failedCount += answer.failedCount;
      bar.advance(items.length);
      at += items.length;
    }
  } finally {
    bar.stop();
  }
}

/** The table of every file (`not stamped` for those not reached), or `--json`'s merged response. */
function report(files: string[], hashes: string[], made: GrpcBatchStampResponse, flags: Flags): void {
  if (flags.json) {
    console.log(JSON.stringify(toJson(BatchStampResponseSchema, made), null, 2));
    return;
  }
  const stamps = byFile(hashes, made.stamps);
  console.log(table(hashes.map((hash, i) => row(files[i]!, hash, stamps[i]))));
}

/** BatchStamp leaves failed items out and keeps the order: walk both lists to pair stamps with files. */
function byFile(hashes: string[], stamps: GrpcStamp[]): (GrpcStamp | undefined)[] {
  let next = 0;
  return hashes.map((hash) => (stamps[next]?.contentHash === hash ? stamps[next++] : undefined));
}

function row(file: string, hash: string, stamp: GrpcStamp | undefined): string[] {
  if (!stamp) return [file, "-", "not stamped", hash];
  const status = GrpcStampStatus[stamp.status].replace("STAMP_STATUS_", "").toLowerCase();
  return [file, stamp.id, status, hash];
}
