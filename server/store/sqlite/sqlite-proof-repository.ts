import type Database from "better-sqlite3";
import type {
  Batch,
  BatchMember,
  ClaimedStamp,
  LeafProof,
  ProofRepository,
  SealedBatch,
} from "../../proofs/proof-repository.js";
import {
  type BatchRow,
  batchOf,
  batchParams,
  type ClaimedRow,
  claimedStamp,
  joinHashes,
  type MemberRow,
  memberOf,
  type ProofRow,
  proofOf,
} from "../rows/proof-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** Batches and leaf proofs in SQLite; a seal is one IMMEDIATE transaction, so claims never overlap. */
export class SqliteProofRepository implements ProofRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async sealBatch(
    batchId: string,
    max: number,
    seal: (claimed: ClaimedStamp[]) => SealedBatch,
  ): Promise<SealedBatch | null> {
    const run = this.db.transaction((): SealedBatch | null => {
      // The batch row follows in this transaction; the foreign key is checked at commit.
      const claimed = this.sql().claim.all({ batch_id: batchId, max }) as ClaimedRow[];
      if (claimed.length === 0) return null;
      const sealed = seal(claimed.map(claimedStamp));
      this.store(sealed);
      return sealed;
    });
    return run.immediate();
  }

  private store({ batch, leaves, anchors }: SealedBatch): void {
    this.sql().insertBatch.run(batchParams(batch, sqliteEncoding));
    for (const leaf of leaves) {
      this.sql().insertLeaf.run({
        stamp_id: leaf.stampId,
        batch_id: batch.id,
        leaf_index: leaf.leafIndex,
        audit_path: joinHashes(leaf.auditPath),
      });
    }
    for (const type of anchors) {
      this.sql().insertAnchor.run({ batch_id: batch.id, type, due: batch.sealedAt.toISOString() });
    }
  }

  async proofOf(stampId: string): Promise<(LeafProof & { batch: Batch }) | undefined> {
    const row = this.sql().proofOf.get(stampId) as ProofRow | undefined;
    return row && proofOf(stampId, row);
  }

  async getBatch(batchId: string): Promise<Batch | undefined> {
    const row = this.sql().getBatch.get(batchId) as BatchRow | undefined;
    return row && batchOf(row);
  }

  async members(batchId: string): Promise<BatchMember[]> {
    return (this.sql().members.all(batchId) as MemberRow[]).map(memberOf);
  }

  async markAnchored(stampIds: readonly string[]): Promise<void> {
    const mark = this.db.transaction(() => {
      for (const id of stampIds) this.sql().markAnchored.run(id);
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
