import type pg from "pg";
import type { AnchorRecord, AnchorRepository } from "../../anchors/anchor-repository.js";
import type { AnchorType } from "../../stamps/stamp-settings.js";
import { type AnchorRow, anchorOf, anchorParams } from "../rows/proof-rows.js";
import { postgresEncoding } from "../rows/values.js";

/** Anchor records in PostgreSQL; workers on several instances lease due records with SKIP LOCKED. */
export class PostgresAnchorRepository implements AnchorRepository {
  constructor(private readonly pool: pg.Pool) {}

  async claimDue(
    types: readonly AnchorType[],
    now: Date,
    leaseMs: number,
    limit: number,
  ): Promise<AnchorRecord[]> {
    if (types.length === 0) return [];
    const { rows } = await this.pool.query<AnchorRow>(
      `WITH due AS (SELECT batch_id, type FROM batch_anchors
           WHERE status = 'pending' AND next_attempt_at <= $1 AND type = ANY($2)
           ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED),
         leased AS (UPDATE batch_anchors a SET next_attempt_at = $4 FROM due
           WHERE a.batch_id = due.batch_id AND a.type = due.type RETURNING a.*)
       SELECT * FROM leased ORDER BY next_attempt_at, batch_id, type`,
      [now, types, limit, new Date(now.getTime() + leaseMs)],
    );
    return rows.map(anchorOf);
  }

  async save(record: AnchorRecord, nextAttemptAt: Date): Promise<void> {
    await this.pool.query(
      `UPDATE batch_anchors SET status = $3, reference = $4, confirmed_at = $5, reason = $6, evidence = $7,
         attempts = $8, next_attempt_at = $9
       WHERE batch_id = $1 AND type = $2`,
      Object.values(anchorParams(record, nextAttemptAt, postgresEncoding)),
    );
  }

  async forBatch(batchId: string): Promise<AnchorRecord[]> {
    const { rows } = await this.pool.query<AnchorRow>(
      "SELECT * FROM batch_anchors WHERE batch_id = $1 ORDER BY type",
      [batchId],
    );
    return rows.map(anchorOf);
  }

  async pendingByType(): Promise<Partial<Record<AnchorType, number>>> {
    const { rows } = await this.pool.query<{ type: AnchorType; n: number }>(
      "SELECT type, count(*)::int AS n FROM batch_anchors WHERE status = 'pending' GROUP BY type",
    );
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  }
}
