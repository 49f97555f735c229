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
  joinHashes,
  type MemberRow,
  memberOf,
  type ProofRow,
  proofOf,
} from "../rows/proof-rows.js";
import { postgresEncoding } from "../rows/values.js";
import { transaction } from "./transaction.js";

/**
 * Batches and leaf proofs in PostgreSQL. A seal claims its stamps with FOR UPDATE SKIP LOCKED, so
 * instances sealing at once take disjoint stamps, and the claim (`batch_id IS NULL`) is re-checked
 * on each row it locks: no stamp is sealed twice, and one left unclaimed waits for the next seal.
 */
export class PostgresProofRepository implements ProofRepository {
  constructor(private readonly pool: pg.Pool) {}

  async sealBatch(
    batchId: string,
    max: number,
    seal: (claimed: ClaimedStamp[]) => SealedBatch,
  ): Promise<SealedBatch | null> {
    return transaction(this.pool, async (client) => {
      // The batch row follows in this transaction; the deferred foreign key is checked at commit.
      const { rows } = await client.query<ClaimedRow>(
        `WITH due AS (SELECT id FROM stamps WHERE batch_id IS NULL ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED),
           claimed AS (UPDATE stamps s SET batch_id = $1, status = 'confirmed' FROM due WHERE s.id = due.id
             RETURNING s.id, s.account_id, s.leaf_hash,
               CASE WHEN s.leaf_hash IS NULL THEN s.stamp_json END AS stamp_json,
               substr(s.stamp_json, 1, strpos(s.stamp_json, ']')) AS opening)
         SELECT * FROM claimed ORDER BY id`,
        [batchId, max],
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
      "SELECT id, account_id, status, stamp_json FROM stamps WHERE batch_id = $1 ORDER BY id",
      [batchId],
    );
    return rows.map(memberOf);
  }

  async markAnchored(stampIds: readonly string[]): Promise<void> {
    await this.pool.query(
      "UPDATE stamps SET status = 'anchored' WHERE id = ANY($1) AND status = 'confirmed'",
      [stampIds],
    );
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
