import type Database from "better-sqlite3";
import type { AnchorRecord, AnchorRepository } from "../../anchors/anchor-repository.js";
import type { AnchorType } from "../../stamps/stamp-settings.js";
import { type AnchorRow, anchorOf, anchorParams } from "../rows/proof-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** Anchor records in SQLite. */
export class SqliteAnchorRepository implements AnchorRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async claimDue(
    types: readonly AnchorType[],
    now: Date,
    leaseMs: number,
    limit: number,
  ): Promise<AnchorRecord[]> {
    if (types.length === 0) return [];
    const rows = this.sql().claim.all({
      types: JSON.stringify(types),
      now: now.toISOString(),
      lease: new Date(now.getTime() + leaseMs).toISOString(),
      limit,
    }) as AnchorRow[];
    return rows.map(anchorOf);
  }

  async save(record: AnchorRecord, nextAttemptAt: Date): Promise<void> {
    this.sql().save.run(anchorParams(record, nextAttemptAt, sqliteEncoding));
  }

  async forBatch(batchId: string): Promise<AnchorRecord[]> {
    return (this.sql().forBatch.all(batchId) as AnchorRow[]).map(anchorOf);
  }

  async pendingByType(): Promise<Partial<Record<AnchorType, number>>> {
    const rows = this.sql().pendingByType.all() as { type: AnchorType; n: number }[];
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  }
}

function prepare(db: Database.Database) {
  return {
    pendingByType: db.prepare(
      "SELECT type, count(*) AS n FROM batch_anchors WHERE status = 'pending' GROUP BY type",
    ),
    claim: db.prepare(
      `UPDATE batch_anchors SET next_attempt_at = @lease
       WHERE (batch_id, type) IN (
         SELECT batch_id, type FROM batch_anchors
         WHERE status = 'pending' AND next_attempt_at <= @now AND type IN (SELECT value FROM json_each(@types))
         ORDER BY next_attempt_at LIMIT @limit)
       RETURNING *`,
    ),
    save: db.prepare(
      `UPDATE batch_anchors SET status = @status, reference = @reference, confirmed_at = @confirmed_at,
         reason = @reason, evidence = @evidence, attempts = @attempts, next_attempt_at = @next_attempt_at
       WHERE batch_id = @batch_id AND type = @type`,
    ),
    forBatch: db.prepare("SELECT * FROM batch_anchors WHERE batch_id = ? ORDER BY type"),
  };
}
