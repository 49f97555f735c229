import type { AnchorRecord } from "../../anchors/anchor-repository.js";
import type { LogEntry, StoredCheckpoint } from "../../log/log-repository.js";
import type { Batch, BatchMember, ClaimedStamp, LeafProof } from "../../proofs/proof-repository.js";
import { stampLeafHash } from "../../proofs/stamp-leaf-hash.js";
import type { StampStatus } from "../../stamps/stamp-repository.js";
import type { AnchorType } from "../../stamps/stamp-settings.js";
import {
  bufferOf,
  bytesOf,
  dateOf,
  dateOrNull,
  type Encoding,
  encodeDateOrNull,
  type Timestamp,
} from "./values.js";

/**
 * Rows of the proof pipeline, on both engines: the stamps a seal claims, batches and their leaf
 * proofs, the transparency log over batch roots, and each batch's anchor records. The parameter
 * builders list their columns in the order the PostgreSQL statements number their parameters.
 */

/** What a seal's claim returns of a stamp: its document only when it was stored without its leaf hash. */
export interface ClaimedRow {
  id: string;
  account_id: string | null;
  leaf_hash: Buffer | null;
  stamp_json: string | null;
  opening: string;
}

export const claimedStamp = (row: ClaimedRow): ClaimedStamp => ({
  id: row.id,
  accountId: row.account_id,
  leafHash: row.leaf_hash ?? stampLeafHash(row.stamp_json!),
  opening: row.opening,
});

/** A row of `batches`. */
export interface BatchRow {
  id: string;
  sealed_at: Timestamp;
  tree_size: number;
  root: Buffer;
  signature: string;
  public_key: string;
  log_index: number | null;
}

export const batchOf = (row: BatchRow): Batch => ({
  id: row.id,
  sealedAt: dateOf(row.sealed_at),
  treeSize: row.tree_size,
  root: bytesOf(row.root),
  signature: row.signature,
  publicKey: row.public_key,
  logIndex: row.log_index,
});

/** A new batch's columns (`log_index` is set when the log takes it). */
export const batchParams = (batch: Batch, encoding: Encoding) => ({
  id: batch.id,
  sealed_at: encoding.date(batch.sealedAt),
  tree_size: batch.treeSize,
  root: bufferOf(batch.root),
  signature: batch.signature,
  public_key: batch.publicKey,
});

/** A stamp's leaf proof joined with its batch. */
export type ProofRow = BatchRow & { leaf_index: number; audit_path: Buffer };

export const proofOf = (stampId: string, row: ProofRow): LeafProof & { batch: Batch } => ({
  stampId,
  leafIndex: row.leaf_index,
  auditPath: splitHashes(row.audit_path),
  batch: batchOf(row),
});

/** An audit path as stored: the sibling hashes concatenated, 32 bytes each. */
export const joinHashes = (hashes: readonly Uint8Array[]): Buffer => Buffer.concat(hashes);

export const splitHashes = (blob: Buffer): Uint8Array[] =>
  Array.from({ length: blob.length / 32 }, (_, i) => new Uint8Array(blob.subarray(i * 32, i * 32 + 32)));

/**
 * A batch member's status, for a query joining `stamps s` with its `stamp_proofs` row: a stamp
 * sealed since migration 0013 keeps 'pending' in its row, and is confirmed all the same.
 */
export const memberStatus = "CASE s.status WHEN 'pending' THEN 'confirmed' ELSE s.status END AS status";

/**
 * The condition, on `stamps`, of a confirmed stamp (the only ones `markAnchored` moves): sealed (its
 * stamp_proofs row; its own row says 'pending' when sealed since migration 0013), not yet anchored.
 */
export const confirmedStamp =
  "status <> 'anchored' AND EXISTS (SELECT 1 FROM stamp_proofs WHERE stamp_proofs.stamp_id = stamps.id)";

/** A stamp of a batch, as `members` reads it. */
export interface MemberRow {
  id: string;
  account_id: string | null;
  status: StampStatus;
  stamp_json: string;
}

export const memberOf = (row: MemberRow): BatchMember => ({
  id: row.id,
  accountId: row.account_id,
  status: row.status,
  anchors: (JSON.parse(row.stamp_json) as { anchors: AnchorType[] }).anchors,
});

/** A row of `log_entries`. */
export interface LogEntryRow {
  idx: number;
  leaf_hash: Buffer;
  batch_id: string;
}

export const logEntryOf = (row: LogEntryRow): LogEntry => ({
  index: row.idx,
  leafHash: bytesOf(row.leaf_hash),
  batchId: row.batch_id,
});

/** A row of `log_checkpoints`. */
export interface CheckpointRow {
  tree_size: number;
  root: Buffer;
  note: string;
  signed_at: Timestamp;
}

export const checkpointOf = (row: CheckpointRow): StoredCheckpoint => ({
  treeSize: row.tree_size,
  root: bytesOf(row.root),
  note: row.note,
  signedAt: dateOf(row.signed_at),
});

/** The tables of signed checkpoints: the transparency log's and the stamp log's (docs/sigstore.md). */
export type CheckpointTable = "log_checkpoints" | "stamp_log_checkpoints";

export const checkpointParams = (checkpoint: StoredCheckpoint, encoding: Encoding) => ({
  tree_size: checkpoint.treeSize,
  root: bufferOf(checkpoint.root),
  note: checkpoint.note,
  signed_at: encoding.date(checkpoint.signedAt),
});

/** A row of `batch_anchors` (its next attempt is the store's own business). */
export interface AnchorRow {
  batch_id: string;
  type: AnchorType;
  status: AnchorRecord["status"];
  reference: string | null;
  confirmed_at: Timestamp | null;
  reason: string | null;
  evidence: Buffer | null;
  attempts: number;
}

export const anchorOf = (row: AnchorRow): AnchorRecord => ({
  batchId: row.batch_id,
  type: row.type,
  status: row.status,
  reference: row.reference,
  confirmedAt: dateOrNull(row.confirmed_at),
  reason: row.reason,
  evidence: row.evidence === null ? null : bytesOf(row.evidence),
  attempts: row.attempts,
});

/** The columns an attempt's outcome writes: the record's key first, then what it sets. */
export const anchorParams = (record: AnchorRecord, nextAttemptAt: Date, encoding: Encoding) => ({
  batch_id: record.batchId,
  type: record.type,
  status: record.status,
  reference: record.reference,
  confirmed_at: encodeDateOrNull(encoding, record.confirmedAt),
  reason: record.reason,
  evidence: record.evidence === null ? null : bufferOf(record.evidence),
  attempts: record.attempts,
  next_attempt_at: encoding.date(nextAttemptAt),
});
