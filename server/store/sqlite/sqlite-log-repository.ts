import type Database from "better-sqlite3";
import type { LogEntry, LogRepository, StoredCheckpoint } from "../../log/log-repository.js";

/** The transparency log in SQLite; an append is one IMMEDIATE transaction, so indexes never clash. */
export class SqliteLogRepository implements LogRepository {
  private statements?: ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {}

  private get sql() {
    this.statements ??= prepare(this.db);
    return this.statements;
  }

  async appendSealed(now: Date, leafHash: (root: Uint8Array) => Uint8Array): Promise<number> {
    const append = this.db.transaction((): number => {
      let size = (this.sql.size.get() as { n: number }).n;
      for (const batch of this.sql.unsequenced.all() as { id: string; root: Buffer }[]) {
        this.sql.insert.run({
          idx: size,
          leaf_hash: Buffer.from(leafHash(new Uint8Array(batch.root))),
          batch_id: batch.id,
          appended_at: now.toISOString(),
        });
        this.sql.sequenced.run({ idx: size, id: batch.id });
        size++;
      }
      return size;
    });
    return append.immediate();
  }

  async entriesFrom(from: number): Promise<LogEntry[]> {
    const rows = this.sql.entriesFrom.all(from) as { idx: number; leaf_hash: Buffer; batch_id: string }[];
    return rows.map((r) => ({ index: r.idx, leafHash: new Uint8Array(r.leaf_hash), batchId: r.batch_id }));
  }

  async saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void> {
    this.sql.saveCheckpoint.run({
      tree_size: checkpoint.treeSize,
      root: Buffer.from(checkpoint.root),
      note: checkpoint.note,
      signed_at: checkpoint.signedAt.toISOString(),
    });
  }

  async latestCheckpoint(): Promise<StoredCheckpoint | undefined> {
    const row = this.sql.latest.get() as
      | { tree_size: number; root: Buffer; note: string; signed_at: string }
      | undefined;
    return (
      row && {
        treeSize: row.tree_size,
        root: new Uint8Array(row.root),
        note: row.note,
        signedAt: new Date(row.signed_at),
      }
    );
  }
}

function prepare(db: Database.Database) {
  return {
    size: db.prepare("SELECT count(*) AS n FROM log_entries"),
    unsequenced: db.prepare("SELECT id, root FROM batches WHERE log_index IS NULL ORDER BY sealed_at, id"),
    insert: db.prepare(
      `INSERT INTO log_entries (idx, leaf_hash, batch_id, appended_at)
       VALUES (@idx, @leaf_hash, @batch_id, @appended_at)`,
    ),
    sequenced: db.prepare("UPDATE batches SET log_index = @idx WHERE id = @id"),
    entriesFrom: db.prepare("SELECT idx, leaf_hash, batch_id FROM log_entries WHERE idx >= ? ORDER BY idx"),
    saveCheckpoint: db.prepare(
      `INSERT INTO log_checkpoints (tree_size, root, note, signed_at)
       VALUES (@tree_size, @root, @note, @signed_at) ON CONFLICT (tree_size) DO NOTHING`,
    ),
    latest: db.prepare("SELECT * FROM log_checkpoints ORDER BY tree_size DESC LIMIT 1"),
  };
}
