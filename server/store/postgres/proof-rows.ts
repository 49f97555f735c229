import type { Batch } from "../../proofs/proof-repository.js";

/** A row of `batches` as pg decodes it. */
export interface BatchRow {
  id: string;
  sealed_at: Date;
  tree_size: number;
  root: Buffer;
  signature: string;
  public_key: string;
  log_index: number | null;
}

export const batchOf = (row: BatchRow): Batch => ({
  id: row.id,
  sealedAt: row.sealed_at,
  treeSize: row.tree_size,
  root: new Uint8Array(row.root),
  signature: row.signature,
  publicKey: row.public_key,
  logIndex: row.log_index,
});

/** An audit path as stored: the sibling hashes concatenated, 32 bytes each. */
export const joinHashes = (hashes: readonly Uint8Array[]): Buffer => Buffer.concat(hashes);

export const splitHashes = (blob: Buffer): Uint8Array[] =>
  Array.from({ length: blob.length / 32 }, (_, i) => new Uint8Array(blob.subarray(i * 32, i * 32 + 32)));
