import type pg from "pg";
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
import { postgresEncoding } from "../rows/values.js";
import { transaction } from "./transaction.js";

/**
 * Batches and leaf proofs in PostgreSQL. A seal takes its stamps off the queue of waiting stamps
 * (`unsealed_stamps`) with FOR UPDATE SKIP LOCKED, so instances sealing at once take disjoint
 * stamps, and a queue row another seal deleted meanwhile is gone when its lock is released: no
 * stamp is sealed twice, and one left unclaimed waits for the next seal.
 */
export class PostgresProofRepository implements ProofRepository {
  constructor(private readonly pool: pg.Pool) {}

  async sealBatch(max: number, seal: (claimed: ClaimedStamp[]) => SealedBatch): Promise<SealedBatch | null> {
    return transaction(this.pool, async (client) => {
      // The batch row follows in this transaction; the deferred foreign key is checked at commit.
      // The oldest waiting stamps (migration 0013), taken off the queue; their rows are read, not
      // rewritten: the stamp_proofs rows written below are their batch membership.
      const { rows } = await client.query<ClaimedRow>(
        `WITH due AS (SELECT stamp_id FROM unsealed_stamps ORDER BY stamp_id LIMIT $1 FOR UPDATE SKIP LOCKED),
           taken AS (DELETE FROM unsealed_stamps q USING due WHERE q.stamp_id = due.stamp_id RETURNING q.stamp_id)
         SELECT s.id, s.account_id, s.leaf_hash,
           CASE WHEN s.leaf_hash IS NULL THEN s.stamp_json END AS stamp_json,
           substr(s.stamp_json, 1, strpos(s.stamp_json, ']')) AS opening
         FROM taken JOIN stamps s ON s.id = taken.stamp_id ORDER BY s.id`,
        [max],
      );
      if (rows.length === 0) return null;
      const sealed = seal(rows.map(claimedStamp));
      await store(client, sealed);
      return sealed;
    });
  }

  async proofOf(stampId: string): Promise<(LeafProof & { batch: Batch }) | undefined> {
    const { rows } = await this.pool.query<ProofRow>(
      `SELECT b.*, p.leaf_index, p.audit_path FROM stamp_proofs p JOIN batches b ON b.id = p.batch_id
       WHERE p.stamp_id = $1`,
      [stampId],
    );
    return rows[0] && proofOf(stampId, rows[0]);
  }

  async getBatch(batchId: string): Promise<Batch | undefined> {
    const { rows } = await this.pool.query<BatchRow>("SELECT * FROM batches WHERE id = $1", [batchId]);
    return rows[0] && batchOf(rows[0]);
  }

  async members(batchId: string): Promise<BatchMember[]> {
    const { rows } = await this.pool.query<MemberRow>(
      `SELECT s.id, s.account_id, ${memberStatus}, s.stamp_json
       FROM stamp_proofs p JOIN stamps s ON s.id = p.stamp_id WHERE p.batch_id = $1 ORDER BY p.leaf_index`,
      [batchId],
    );
    return rows.map(memberOf);
  }

  async markAnchored(stampIds: readonly string[]): Promise<void> {
    await this.pool.query(`UPDATE stamps SET status = 'anchored' WHERE id = ANY($1) AND ${confirmedStamp}`, [
      stampIds,
    ]);
  }
}

/** The batch, its leaf proofs and a pending anchor record per type (due at once), three statements. */
async function store(client: pg.PoolClient, { batch, leaves, anchors }: SealedBatch): Promise<void> {
  await client.query(
    `INSERT INTO batches (id, sealed_at, tree_size, root, signature, public_key)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    Object.values(batchParams(batch, postgresEncoding)),
  );
  await client.query(
    `INSERT INTO stamp_proofs (stamp_id, batch_id, leaf_index, audit_path)
     SELECT stamp_id, $1, leaf_index, audit_path FROM unnest($2::text[], $3::int[], $4::bytea[])
       AS l (stamp_id, leaf_index, audit_path)`,
    [
      batch.id,
      leaves.map((l) => l.stampId),
      leaves.map((l) => l.leafIndex),
      leaves.map((l) => joinHashes(l.auditPath)),
    ],
  );
  await client.query(
    `INSERT INTO batch_anchors (batch_id, type, status, next_attempt_at)
     SELECT $1, type, 'pending', $3 FROM unnest($2::text[]) AS a (type)`,
    [batch.id, anchors, batch.sealedAt],
  );
}
