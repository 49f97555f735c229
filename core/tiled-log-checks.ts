import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import { type Checkpoint, verifyCheckpoint } from "./checkpoint.js";
import { equalBytes, leafHash, verifyConsistency, verifyInclusion } from "./merkle.js";
import { type ProofCheck, type StampProof, verifyStampProof } from "./stamp-proof.js";
import type { TiledLog } from "./tiled-log.js";
import type { StampDocument } from "./types.js";

/** The latest checkpoint a tiled log serves, its signature checked against trusted log keys. */
export async function tiledCheckpoint(
  log: TiledLog,
  trustedLogKeys: readonly string[],
): Promise<{ note: string; checkpoint: Checkpoint }> {
  const note = await log.checkpointNote();
  return { note, checkpoint: await verifyCheckpoint(note, trustedLogKeys) };
}

/**
 * Whether entry `index` is in the tree `checkpoint` signs, from the tiles alone: the entry from its
 * bundle, leaf-hashed, and the audit path computed from the hash tiles lead to the signed root.
 * Resolves the entry (a batch root) when they do, undefined when they do not.
 *
 * @example
 * const root = await verifyEntryInTiles(log, 1842, checkpoint); // the batch root, proven
 */
export async function verifyEntryInTiles(
  log: TiledLog,
  index: number,
  checkpoint: Checkpoint,
): Promise<Uint8Array | undefined> {
  if (index >= checkpoint.treeSize) return undefined;
  const entry = await log.entry(index, checkpoint.treeSize);
  const path = await log.inclusionProof(index, checkpoint.treeSize);
  return verifyInclusion(leafHash(entry), index, checkpoint.treeSize, path, checkpoint.rootHash)
    ? entry
    : undefined;
}

/**
 * Whether the tree of `newer` extends the tree of `older`, with a consistency proof computed from
 * the tiles of the tree of `newer` (the log that signed `newer` serves them).
 */
export async function consistentInTiles(
  log: TiledLog,
  older: Checkpoint,
  newer: Checkpoint,
): Promise<boolean> {
  if (older.treeSize > newer.treeSize) return consistentInTiles(log, newer, older);
  if (older.treeSize === newer.treeSize) return equalBytes(older.rootHash, newer.rootHash);
  const proof = await log.consistencyProof(older.treeSize, newer.treeSize);
  return verifyConsistency(older.treeSize, newer.treeSize, older.rootHash, newer.rootHash, proof);
}

export interface TiledStampOptions {
  /** The log's verifier keys (`GET /log` `verifier_key`, pinned). */
  trustedLogKeys: readonly string[];
  /** Service keys whose batch signatures to accept; absent: the proof's key is taken as given. */
  trustedServiceKeys?: readonly string[] | undefined;
}

/**
 * Verifies a stamp with nothing but its batch proof and the log's tiles: the leaf, audit path and
 * batch signature of the proof (verifyStampProof), then the batch root's inclusion in the latest
 * checkpoint the tiles serve (signed by a trusted log key), at the proof's log index, with the
 * entry bundle holding that root. The proof's own checkpoint and inclusion path are not used, so
 * a stamp sealed long ago is checked against today's tree.
 *
 * @example
 * const log = new TiledLog(httpTileSource("https://cdn.example.com/stampd-log/"));
 * const check = await verifyStampInTiles(stamp.stamp_json, proof, log, { trustedLogKeys: [key] });
 * check.valid; // true
 */
export async function verifyStampInTiles(
  stamp: StampDocument,
  proof: StampProof,
  log: TiledLog,
  options: TiledStampOptions,
): Promise<ProofCheck> {
  const check = await verifyStampProof(stamp, proof, { trustedServiceKeys: options.trustedServiceKeys });
  const failures = [...check.failures];
  const done = (status: ProofCheck["log"], checkpoint?: Checkpoint): ProofCheck => ({
    ...check,
    valid: failures.length === 0,
    log: status,
    checkpoint,
    failures,
  });
  if (!proof.log) {
    failures.push("log: the proof has no log index yet");
    return done("absent");
  }
  try {
    const { checkpoint } = await tiledCheckpoint(log, options.trustedLogKeys);
    const entry = await verifyEntryInTiles(log, proof.log.index, checkpoint);
    if (!entry) failures.push(`log: entry ${proof.log.index} is not in the tiles of the signed checkpoint`);
    else if (!equalBytes(entry, hexToBytes(proof.batch.root)))
      failures.push(`log: entry ${proof.log.index} is batch root ${bytesToHex(entry)}, not this batch's`);
    return done(failures.length === check.failures.length ? "valid" : "invalid", checkpoint);
  } catch (err) {
    failures.push(`log: ${(err as Error).message}`);
    return done("invalid");
  }
}
