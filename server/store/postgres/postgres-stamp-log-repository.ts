import type pg from "pg";
import type { StoredCheckpoint } from "../../log/log-repository.js";
import type {
  NewStampLogEntry,
  StampLogEntry,
  StampLogRepository,
} from "../../sigstore/stamp-log-repository.js";
import { type CheckpointRow, checkpointOf, checkpointParams } from "../rows/proof-rows.js";
import { bufferOf, bytesOf, postgresEncoding } from "../rows/values.js";
import { transaction } from "./transaction.js";

/**
 * The stamp log in PostgreSQL. An append holds an EXCLUSIVE lock on `stamp_log_entries` for its
 * transaction, as the transparency log's does: appenders on any instance take turns, so there is
 * one sequence and never two entries at one index. A trigger refuses updates and deletes.
 */
export class PostgresStampLogRepository implements StampLogRepository {
  constructor(private readonly pool: pg.Pool) {}

  async append(entries: readonly NewStampLogEntry[], now: Date): Promise<number> {
    return transaction(this.pool, async (client) => {
      await client.query("LOCK TABLE stamp_log_entries IN EXCLUSIVE MODE");
      const { rows } = await client.query<{ size: number; logged: string[] }>(
        `SELECT (SELECT coalesce(max(idx) + 1, 0) FROM stamp_log_entries) AS size,
                (SELECT coalesce(array_agg(stamp_id), '{}') FROM stamp_log_entries WHERE stamp_id = ANY($1)) AS logged`,
        [entries.map((e) => e.stampId)],
      );
      const { size, logged } = rows[0]!;
      const fresh = entries.filter((e) => !logged.includes(e.stampId));
      if (fresh.length === 0) return size;
      await client.query(
        `INSERT INTO stamp_log_entries (idx, stamp_id, body, leaf_hash, appended_at)
         SELECT idx, stamp_id, body, leaf_hash, $5
           FROM unnest($1::int[], $2::text[], $3::bytea[], $4::bytea[]) AS e (idx, stamp_id, body, leaf_hash)`,
        [
          fresh.map((_, i) => size + i),
          fresh.map((e) => e.stampId),
          fresh.map((e) => bufferOf(e.body)),
          fresh.map((e) => bufferOf(e.leafHash)),
          now,
        ],
      );
      return size + fresh.length;
    });
  }

  async entryOf(stampId: string): Promise<StampLogEntry | undefined> {
    const { rows } = await this.pool.query<{ idx: number; body: Buffer }>(
      "SELECT idx, body FROM stamp_log_entries WHERE stamp_id = $1",
      [stampId],
    );
    return rows[0] && { index: rows[0].idx, body: bytesOf(rows[0].body) };
  }

  async leafHashesFrom(from: number): Promise<Uint8Array[]> {
    const { rows } = await this.pool.query<{ leaf_hash: Buffer }>(
      "SELECT leaf_hash FROM stamp_log_entries WHERE idx >= $1 ORDER BY idx",
      [from],
    );
    return rows.map((r) => bytesOf(r.leaf_hash));
  }

  async saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    await this.pool.query(
      `INSERT INTO stamp_log_checkpoints (tree_size, root, note, signed_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tree_size) DO NOTHING`,
      Object.values(checkpointParams(checkpoint, postgresEncoding)),
    );
  }

  async replaceCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    const { tree_size, note, signed_at } = checkpointParams(checkpoint, postgresEncoding);
    await this.pool.query("UPDATE stamp_log_checkpoints SET note = $2, signed_at = $3 WHERE tree_size = $1", [
      tree_size,
      note,
      signed_at,
    ]);
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const { rows } = await this.pool.query<CheckpointRow>(
      "SELECT * FROM stamp_log_checkpoints ORDER BY tree_size DESC LIMIT 1",
    );
    return rows[0] && checkpointOf(rows[0]);
  }
}
