import type Database from "better-sqlite3";
import type { StoredCheckpoint } from "../../log/log-repository.js";
import type {
  NewStampLogEntry,
  StampLogEntry,
  StampLogRepository,
} from "../../sigstore/stamp-log-repository.js";
import { type CheckpointRow, checkpointOf, checkpointParams } from "../rows/proof-rows.js";
import { bufferOf, bytesOf, sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** The stamp log in SQLite; an append is one IMMEDIATE transaction, so indexes never clash. */
export class SqliteStampLogRepository implements StampLogRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async append(entries: readonly NewStampLogEntry[], now: Date): Promise<number> {
    const append = this.db.transaction((): number => {
      let size = (this.sql().size.get() as { n: number }).n;
      for (const entry of entries) {
        const inserted = this.sql().insert.run({
          idx: size,
          stamp_id: entry.stampId,
          body: bufferOf(entry.body),
          leaf_hash: bufferOf(entry.leafHash),
          appended_at: now.toISOString(),
        });
        size += inserted.changes;
      }
      return size;
    });
    return append.immediate();
  }

  async entryOf(stampId: string): Promise<StampLogEntry | undefined> {
    const row = this.sql().entryOf.get(stampId) as { idx: number; body: Buffer } | undefined;
    return row && { index: row.idx, body: bytesOf(row.body) };
  }

  async leafHashesFrom(from: number): Promise<Uint8Array[]> {
    return (this.sql().leafHashesFrom.all(from) as { leaf_hash: Buffer }[]).map((r) => bytesOf(r.leaf_hash));
  }

  async saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    this.sql().saveCheckpoint.run(checkpointParams(checkpoint, sqliteEncoding));
  }

  async replaceCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    const { tree_size, note, signed_at } = checkpointParams(checkpoint, sqliteEncoding);
    this.sql().replaceCheckpoint.run({ tree_size, note, signed_at });
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const row = this.sql().latest.get() as CheckpointRow | undefined;
    return row && checkpointOf(row);
  }
}

function prepare(db: Database.Database) {
  return {
    size: db.prepare("SELECT count(*) AS n FROM stamp_log_entries"),
    // A stamp another call appended first keeps its index; this one takes none.
    insert: db.prepare(
      `INSERT INTO stamp_log_entries (idx, stamp_id, body, leaf_hash, appended_at)
       VALUES (@idx, @stamp_id, @body, @leaf_hash, @appended_at) ON CONFLICT (stamp_id) DO NOTHING`,
    ),
    entryOf: db.prepare("SELECT idx, body FROM stamp_log_entries WHERE stamp_id = ?"),
    leafHashesFrom: db.prepare("SELECT leaf_hash FROM stamp_log_entries WHERE idx >= ? ORDER BY idx"),
    saveCheckpoint: db.prepare(
      `INSERT INTO stamp_log_checkpoints (tree_size, root, note, signed_at)
       VALUES (@tree_size, @root, @note, @signed_at) ON CONFLICT (tree_size) DO NOTHING`,
    ),
    replaceCheckpoint: db.prepare(
      "UPDATE stamp_log_checkpoints SET note = @note, signed_at = @signed_at WHERE tree_size = @tree_size",
    ),
    latest: db.prepare("SELECT * FROM stamp_log_checkpoints ORDER BY tree_size DESC LIMIT 1"),
  };
}
