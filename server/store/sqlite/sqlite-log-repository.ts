import type Database from "better-sqlite3";
import type { LogEntry, LogRepository } from "../../log/log-repository.js";
import { type LogEntryRow, logEntryOf } from "../rows/proof-rows.js";
import { bufferOf } from "../rows/values.js";
import { SqliteCheckpoints } from "./sqlite-checkpoints.js";
import { preparedOnFirstUse } from "./statements.js";

/** The transparency log in SQLite; an append is one IMMEDIATE transaction, so indexes never clash. */
export class SqliteLogRepository extends SqliteCheckpoints implements LogRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    super(db, "log_checkpoints");
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async appendSealed(now: Date, leafHash: (root: Uint8Array) => Uint8Array): Promise<number> {
    const append = this.db.transaction((): number => {
      let size = (this.sql().size.get() as { n: number }).n;
      for (const batch of this.sql().unsequenced.all() as { id: string; root: Buffer }[]) {
        this.sql().insert.run({
          idx: size,
          leaf_hash: bufferOf(leafHash(new Uint8Array(batch.root))),
          batch_id: batch.id,
          appended_at: now.toISOString(),
        });
        this.sql().sequenced.run({ idx: size, id: batch.id });
        size++;
      }
      return size;
    });
    return append.immediate();
  }

  async entriesFrom(from: number): Promise<LogEntry[]> {
    return (this.sql().entriesFrom.all(from) as LogEntryRow[]).map(logEntryOf);
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
  };
}
