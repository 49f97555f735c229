import { create, toJson } from "@bufbuild/protobuf";
import { BatchStampResponseSchema } from "../../gen/proto/svc/v1/stamp_pb.js";
import { type GrpcStamp, GrpcStampStatus, type Schemas, type StampdClient } from "../../sdk/src/index.js";
import { saveBundle } from "../bundle-file.js";
import { clientFor, type RemoteFlags } from "../client.js";
import { bundlePaths, fileSizes, total } from "../files.js";
import { hashLocally } from "../local-hash.js";
import { Progress, type ProgressFlags, progressShown } from "../progress.js";
import { table } from "../table.js";

export interface HashOnlyFlags {
  hashOnly?: boolean;
  algorithm?: Schemas["HashAlgorithm"];
  description?: string;
  metadata?: Record<string, string>;
  grpcUrl: string;
  batchSize: number;
}

type Flags = RemoteFlags & ProgressFlags & HashOnlyFlags & { out?: string };

/**
 * `stampd stamp --hash-only`: hashes every file here (one progress bar over all bytes), then
 * stamps the hashes through gRPC BatchStamp, `--batch-size` at a time (a bar over the items).
 */
export async function stampHashes(files: string[], flags: Flags): Promise<void> {
  const sizes = await fileSizes(files);
  const saveAs = flags.out ? await bundlePaths(files, flags.out) : undefined;
  const algorithm = flags.algorithm ?? "sha3-256";
  const shown = progressShown(flags);
  const hashes = await hashAll(files, sizes, algorithm, shown);
  const client = clientFor(flags, { grpcUrl: flags.grpcUrl });
  const response = await batchStamp(client, hashes, flags, shown);
  const stamps = byFile(hashes, response.stamps);
  // BatchStamp answers no stamp document: the bundle gathers it over REST, to verify offline later.
  if (saveAs) {
    for (const [i, stamp] of stamps.entries()) {
      if (stamp) await saveBundle(client, stamp.id, saveAs[i]!, flags.url);
    }
  }
  console.log(
    flags.json
      ? JSON.stringify(toJson(BatchStampResponseSchema, response), null, 2)
      : table(files.map((file, i) => row(file, hashes[i]!, stamps[i]))),
  );
  if (response.failedCount > 0) {
    console.error(`stampd: ${response.failedCount} of ${files.length} hashes were not stamped`);
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

/** One BatchStamp call per `--batch-size` hashes, merged into one response. */
async function batchStamp(client: StampdClient, hashes: string[], flags: Flags, shown: boolean) {
  const merged = create(BatchStampResponseSchema);
  const bar = new Progress(shown, "items");
  bar.start(hashes.length, "stamping");
  try {
    for (let at = 0; at < hashes.length; at += flags.batchSize) {
      const items = hashes.slice(at, at + flags.batchSize).map((contentHash) => ({
        contentHash,
        description: flags.description,
        metadata: flags.metadata,
      }));
      const answer = await client.grpc.batchStamp(items);
      merged.stamps.push(...answer.stamps);
      merged.successCount += answer.successCount;
      merged.failedCount += answer.failedCount;
      bar.advance(items.length);
    }
  } finally {
    bar.stop();
  }
  return merged;
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
