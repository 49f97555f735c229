import type Database from "better-sqlite3";
import type { StoredCheckpoint } from "../../log/log-repository.js";
import {
  type CheckpointRow,
  type CheckpointTable,
  checkpointOf,
  checkpointParams,
} from "../rows/proof-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/**
 * A log's signed checkpoints in SQLite, shared by both logs' repositories: one already stored
 * for a size wins (both are deterministic), unless the tree is signed again with another key
 * because the one that signed it was revoked.
 */
export class SqliteCheckpoints {
  private readonly checkpointSql: () => ReturnType<typeof prepare>;

  constructor(db: Database.Database, table: CheckpointTable) {
    this.checkpointSql = preparedOnFirstUse(db, (opened) => prepare(opened, table));
  }

  async saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    this.checkpointSql().save.run(checkpointParams(checkpoint, sqliteEncoding));
  }

  async replaceCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    const { tree_size, note, signed_at } = checkpointParams(checkpoint, sqliteEncoding);
    this.checkpointSql().replace.run({ tree_size, note, signed_at });
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const row = this.checkpointSql().latest.get() as CheckpointRow | undefined;
    return row && checkpointOf(row);
  }
}

function prepare(db: Database.Database, table: CheckpointTable) {
  return {
    save: db.prepare(
      `INSERT INTO ${table} (tree_size, root, note, signed_at)
       VALUES (@tree_size, @root, @note, @signed_at) ON CONFLICT (tree_size) DO NOTHING`,
    ),
    replace: db.prepare(
      `UPDATE ${table} SET note = @note, signed_at = @signed_at WHERE tree_size = @tree_size`,
    ),
    latest: db.prepare(`SELECT * FROM ${table} ORDER BY tree_size DESC LIMIT 1`),
  };
}
