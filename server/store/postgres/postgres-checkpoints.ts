import type pg from "pg";
import type { StoredCheckpoint } from "../../log/log-repository.js";
import {
  type CheckpointRow,
  type CheckpointTable,
  checkpointOf,
  checkpointParams,
} from "../rows/proof-rows.js";
import { postgresEncoding } from "../rows/values.js";

/**
 * A log's signed checkpoints in PostgreSQL, shared by both logs' repositories: one already stored
 * for a size wins (both are deterministic), unless the tree is signed again with another key
 * because the one that signed it was revoked.
 */
export class PostgresCheckpoints {
  constructor(
    protected readonly pool: pg.Pool,
    private readonly table: CheckpointTable,
  ) {}

  async saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    await this.pool.query(
      `INSERT INTO ${this.table} (tree_size, root, note, signed_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (tree_size) DO NOTHING`,
      Object.values(checkpointParams(checkpoint, postgresEncoding)),
    );
  }

  async replaceCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    const { tree_size, note, signed_at } = checkpointParams(checkpoint, postgresEncoding);
    await this.pool.query(`UPDATE ${this.table} SET note = $2, signed_at = $3 WHERE tree_size = $1`, [
      tree_size,
      note,
      signed_at,
    ]);
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const { rows } = await this.pool.query<CheckpointRow>(
      `SELECT * FROM ${this.table} ORDER BY tree_size DESC LIMIT 1`,
    );
    return rows[0] && checkpointOf(rows[0]);
  }
}
