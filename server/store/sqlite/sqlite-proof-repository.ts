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
  confirmedStamp,
  joinHashes,
  type MemberRow,
  memberOf,
  memberStatus,
  type ProofRow,
  proofOf,
} from "../rows/proof-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse, StatementCache } from "./statements.js";

/** Leaf proofs per INSERT statement, as stamps are inserted (sqlite-stamp-repository.ts). */
const LEAVES_PER_INSERT = 100;

/** Batches and leaf proofs in SQLite; a seal is one IMMEDIATE transaction, so claims never overlap. */
export class SqliteProofRepository implements ProofRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async sealBatch(max: number, seal: (claimed: ClaimedStamp[]) => SealedBatch): Promise<SealedBatch | null> {
    const run = this.db.transaction((): SealedBatch | null => {
      // IMMEDIATE holds the write lock from the start: nothing joins the queue between its read
      // and its removal, so the range removed is exactly what was read.
      const claimed = this.sql().claim.all(max) as ClaimedRow[];
      if (claimed.length === 0) return null;
      this.sql().unqueue.run(claimed.at(-1)!.id);
      const sealed = seal(claimed.map(claimedStamp));
      this.store(sealed);
      return sealed;
    });
    return run.immediate();
  }

  private store({ batch, leaves, anchors }: SealedBatch): void {
    this.sql().insertBatch.run(batchParams(batch, sqliteEncoding));
    for (let at = 0; at < leaves.length; at += LEAVES_PER_INSERT) {
      const chunk = leaves.slice(at, at + LEAVES_PER_INSERT);
      const values: unknown[] = [];
      for (const leaf of chunk)
        values.push(leaf.stampId, batch.id, leaf.leafIndex, joinHashes(leaf.auditPath));
      this.sql().insertLeaves.get(chunk.length).run(values);
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

const insertLeavesOf = (rows: number) =>
  `INSERT INTO stamp_proofs (stamp_id, batch_id, leaf_index, audit_path) VALUES ${Array(rows)
    .fill("(?, ?, ?, ?)")
    .join(", ")}`;

function prepare(db: Database.Database) {
  return {
    // The oldest waiting stamps (migration 0013): read, not rewritten; their stamp_proofs rows,
    // written in the same transaction, are their batch membership.
    claim: db.prepare(
      `SELECT s.id, s.account_id, s.leaf_hash, iif(s.leaf_hash IS NULL, s.stamp_json, NULL) AS stamp_json,
         substr(s.stamp_json, 1, instr(s.stamp_json, ']')) AS opening
       FROM unsealed_stamps q JOIN stamps s ON s.id = q.stamp_id ORDER BY q.stamp_id LIMIT ?`,
    ),
    unqueue: db.prepare("DELETE FROM unsealed_stamps WHERE stamp_id <= ?"),
    insertBatch: db.prepare(
      `INSERT INTO batches (id, sealed_at, tree_size, root, signature, public_key)
       VALUES (@id, @sealed_at, @tree_size, @root, @signature, @public_key)`,
    ),
    insertLeaves: new StatementCache(db, insertLeavesOf),
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
      `SELECT s.id, s.account_id, ${memberStatus}, s.stamp_json
       FROM stamp_proofs p JOIN stamps s ON s.id = p.stamp_id WHERE p.batch_id = ? ORDER BY p.leaf_index`,
    ),
    markAnchored: db.prepare(`UPDATE stamps SET status = 'anchored' WHERE id = ? AND ${confirmedStamp}`),
  };
}
