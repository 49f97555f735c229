import type Database from "better-sqlite3";
import type {
  NewStampLogEntry,
  StampLogEntry,
  StampLogRepository,
} from "../../sigstore/stamp-log-repository.js";
import { bufferOf, bytesOf } from "../rows/values.js";
import { SqliteCheckpoints } from "./sqlite-checkpoints.js";
import { preparedOnFirstUse } from "./statements.js";

/** The stamp log in SQLite; an append is one IMMEDIATE transaction, so indexes never clash. */
export class SqliteStampLogRepository extends SqliteCheckpoints implements StampLogRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    super(db, "stamp_log_checkpoints");
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
  };
}
