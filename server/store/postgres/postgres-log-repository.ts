import type pg from "pg";
import type { LogEntry, LogRepository } from "../../log/log-repository.js";
import { type LogEntryRow, logEntryOf } from "../rows/proof-rows.js";
import { bufferOf } from "../rows/values.js";
import { PostgresCheckpoints } from "./postgres-checkpoints.js";
import { transaction } from "./transaction.js";

/**
 * The transparency log in PostgreSQL. An append holds an EXCLUSIVE lock on `log_entries` for its
 * transaction: appenders on any instance take turns, each continuing at the size the previous one
 * left, so there is one sequence and never two entries at one index (readers are not blocked). A
 * trigger refuses updates and deletes of entries.
 */
export class PostgresLogRepository extends PostgresCheckpoints implements LogRepository {
  constructor(pool: pg.Pool) {
    super(pool, "log_checkpoints");
  }

  async appendSealed(now: Date, leafHash: (root: Uint8Array) => Uint8Array): Promise<number> {
    return transaction(this.pool, async (client) => {
      await client.query("LOCK TABLE log_entries IN EXCLUSIVE MODE");
      const size = await logSize(client);
      const { rows } = await client.query<{ id: string; root: Buffer }>(
        "SELECT id, root FROM batches WHERE log_index IS NULL ORDER BY sealed_at, id",
      );
      if (rows.length === 0) return size;
      const indexes = rows.map((_, i) => size + i);
      await client.query(
        `INSERT INTO log_entries (idx, leaf_hash, batch_id, appended_at)
         SELECT idx, leaf_hash, batch_id, $4 FROM unnest($1::int[], $2::bytea[], $3::text[])
           AS e (idx, leaf_hash, batch_id)`,
        [indexes, rows.map((r) => bufferOf(leafHash(new Uint8Array(r.root)))), rows.map((r) => r.id), now],
      );
      await client.query(
        `UPDATE batches b SET log_index = s.idx FROM unnest($1::text[], $2::int[]) AS s (id, idx)
         WHERE b.id = s.id`,
        [rows.map((r) => r.id), indexes],
      );
      return size + rows.length;
    });
  }

  async entriesFrom(from: number): Promise<LogEntry[]> {
    const { rows } = await this.pool.query<LogEntryRow>(
      "SELECT idx, leaf_hash, batch_id FROM log_entries WHERE idx >= $1 ORDER BY idx",
      [from],
    );
    return rows.map(logEntryOf);
  }
}

/** Entries are 0, 1, 2, … without gaps, so the size is the highest index plus one (read from the index). */
async function logSize(client: pg.PoolClient): Promise<number> {
  const { rows } = await client.query<{ size: number }>(
    "SELECT coalesce(max(idx) + 1, 0) AS size FROM log_entries",
  );
  return rows[0]!.size;
}
