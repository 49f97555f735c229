import type Database from "better-sqlite3";
import type {
  Batch,
  BatchMember,
  ClaimedStamp,
  LeafProof,
  ProofRepository,
  SealedBatch,
} from "../../proofs/proof-repository.js";
import type { StampStatus } from "../../stamps/stamp-repository.js";
import type { AnchorType } from "../../stamps/stamp-settings.js";
import { type ClaimedRow, claimedStamp } from "../claimed-stamp.js";

interface BatchRow {
  id: string;
  sealed_at: string;
  tree_size: number;
  root: Buffer;
  signature: string;
  public_key: string;
  log_index: number | null;
}

export const batchOf = (row: BatchRow): Batch => ({
  id: row.id,
  sealedAt: new Date(row.sealed_at),
  treeSize: row.tree_size,
  root: new Uint8Array(row.root),
  signature: row.signature,
  publicKey: row.public_key,
  logIndex: row.log_index,
});

export const joinHashes = (hashes: readonly Uint8Array[]) => Buffer.concat(hashes);
export const splitHashes = (blob: Buffer): Uint8Array[] =>
  Array.from({ length: blob.length / 32 }, (_, i) => new Uint8Array(blob.subarray(i * 32, i * 32 + 32)));

/** Batches and leaf proofs in SQLite; a seal is one IMMEDIATE transaction, so claims never overlap. */
export class SqliteProofRepository implements ProofRepository {
  private statements?: ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {}

  private get sql() {
    this.statements ??= prepare(this.db);
    return this.statements;
  }

  async sealBatch(
    batchId: string,
    max: number,
    seal: (claimed: ClaimedStamp[]) => SealedBatch,
  ): Promise<SealedBatch | null> {
    const run = this.db.transaction((): SealedBatch | null => {
      // The batch row follows in this transaction; the foreign key is checked at commit.
      const claimed = this.sql.claim.all({ batch_id: batchId, max }) as ClaimedRow[];
      if (claimed.length === 0) return null;
      const sealed = seal(claimed.map(claimedStamp));
      this.store(sealed);
      return sealed;
    });
    return run.immediate();
  }

  private store({ batch, leaves, anchors }: SealedBatch): void {
    this.sql.insertBatch.run({
      id: batch.id,
      sealed_at: batch.sealedAt.toISOString(),
      tree_size: batch.treeSize,
      root: Buffer.from(batch.root),
      signature: batch.signature,
      public_key: batch.publicKey,
    });
    for (const leaf of leaves) {
      this.sql.insertLeaf.run({
        stamp_id: leaf.stampId,
        batch_id: batch.id,
        leaf_index: leaf.leafIndex,
        audit_path: joinHashes(leaf.auditPath),
      });
    }
    for (const type of anchors) {
      this.sql.insertAnchor.run({ batch_id: batch.id, type, due: batch.sealedAt.toISOString() });
    }
  }

  async proofOf(stampId: string): Promise<(LeafProof & { batch: Batch }) | undefined> {
    const row = this.sql.proofOf.get(stampId) as
      | (BatchRow & { leaf_index: number; audit_path: Buffer })
      | undefined;
    return (
      row && {
        stampId,
        leafIndex: row.leaf_index,
        auditPath: splitHashes(row.audit_path),
        batch: batchOf(row),
      }
    );
  }

  async getBatch(batchId: string): Promise<Batch | undefined> {
    const row = this.sql.getBatch.get(batchId) as BatchRow | undefined;
    return row && batchOf(row);
  }

  async members(batchId: string): Promise<BatchMember[]> {
    const rows = this.sql.members.all(batchId) as {
      id: string;
      account_id: string | null;
      status: StampStatus;
      stamp_json: string;
    }[];
    return rows.map((r) => ({
      id: r.id,
      accountId: r.account_id,
      status: r.status,
      anchors: (JSON.parse(r.stamp_json) as { anchors: AnchorType[] }).anchors,
    }));
  }

  async markAnchored(stampIds: readonly string[]): Promise<void> {
    const mark = this.db.transaction(() => {
      for (const id of stampIds) this.sql.markAnchored.run(id);
    });
    mark();
  }
}

function prepare(db: Database.Database) {
  return {
    claim: db.prepare(
      `UPDATE stamps SET batch_id = @batch_id, status = 'confirmed' WHERE id IN (
         SELECT id FROM stamps WHERE batch_id IS NULL ORDER BY id LIMIT @max)
       RETURNING id, account_id, leaf_hash, iif(leaf_hash IS NULL, stamp_json, NULL) AS stamp_json,
         substr(stamp_json, 1, instr(stamp_json, ']')) AS opening`,
    ),
    insertBatch: db.prepare(
      `INSERT INTO batches (id, sealed_at, tree_size, root, signature, public_key)
       VALUES (@id, @sealed_at, @tree_size, @root, @signature, @public_key)`,
    ),
    insertLeaf: db.prepare(
      `INSERT INTO stamp_proofs (stamp_id, batch_id, leaf_index, audit_path)
       VALUES (@stamp_id, @batch_id, @leaf_index, @audit_path)`,
    ),
    insertAnchor: db.prepare(
      `INSERT INTO batch_anchors (batch_id, type, status, next_attempt_at)
       VALUES (@batch_id, @type, 'pending', @due)`,
    ),
    proofOf: db.prepare(
      `SELECT b.*, p.leaf_index, p.audit_path FROM stamp_proofs p JOIN batches b ON b.id = p.batch_id
       WHERE p.stamp_id = ?`,
    ),
    getBatch: db.prepare("SELECT * FROM batches WHERE id = ?"),
    members: db.prepare(
      "SELECT id, account_id, status, stamp_json FROM stamps WHERE batch_id = ? ORDER BY id",
    ),
    markAnchored: db.prepare("UPDATE stamps SET status = 'anchored' WHERE id = ? AND status = 'confirmed'"),
  };
}
