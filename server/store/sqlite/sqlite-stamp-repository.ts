import type Database from "better-sqlite3";
import type { ContentHash } from "../../../core/content-hash.js";
import type { HashMatch, HashPage, StampRepository, StoredStamp } from "../../stamps/stamp-repository.js";
import { GroupCommit } from "../group-commit.js";
import {
  hashMatchOf,
  type StampParams,
  type StampRow,
  stampColumns,
  stampParams,
  stampRowColumns,
  storedStampOf,
} from "../rows/stamp-rows.js";
import { preparedOnFirstUse, StatementCache } from "./statements.js";

/**
 * Rows per INSERT statement: one statement of 100 rows took about a third less CPU than 100
 * single-row statements with named parameters (16 against 26 ms per 1000 stamps here), and 1000
 * values stay far below SQLite's limit of 32 766 per statement.
 */
const ROWS_PER_INSERT = 100;

/** Stamps in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteStampRepository implements StampRepository {
  private readonly sql: () => ReturnType<typeof prepare>;
  /** Concurrent inserts, committed together (synchronous = FULL: one fsync per group). */
  readonly writes = new GroupCommit<StampParams>((rows) => this.sql().insertMany(rows));

  constructor(db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  insert(stamp: StoredStamp): Promise<void> {
    return this.writes.submit([stampParams(stamp)]);
  }

  insertMany(stamps: StoredStamp[]): Promise<void> {
    return this.writes.submit(stamps.map(stampParams));
  }

  async get(id: string): Promise<StoredStamp | undefined> {
    const row = this.sql().get.get(id) as StampRow | undefined;
    return row && storedStampOf(row);
  }

  async findByHash(hash: ContentHash, page: HashPage): Promise<HashMatch[]> {
    const rows = (
      page.after === undefined
        ? this.sql().findByHash.all(hash.hex, hash.algorithm, page.limit)
        : this.sql().findByHashAfter.all(hash.hex, hash.algorithm, page.after, page.limit)
    ) as { id: string; created_at: string }[];
    return rows.map(hashMatchOf);
  }

  async countByIdentity(identityId: string): Promise<number> {
    return (this.sql().countByIdentity.get(identityId) as { n: number }).n;
  }

  async count(): Promise<number> {
    return (this.sql().count.get() as { total: number }).total;
  }
}

const insertOf = (rows: number) =>
  `INSERT INTO stamps (${stampColumns.join(", ")}) VALUES ${Array(rows)
    .fill(`(${stampColumns.map(() => "?").join(", ")})`)
    .join(", ")}`;

/** The positional values of `rows`, row after row. */
function valuesOf(rows: readonly StampParams[]): unknown[] {
  const values: unknown[] = [];
  for (const row of rows) for (const column of stampColumns) values.push(row[column]);
  return values;
}

function prepare(db: Database.Database) {
  // One statement per row count, prepared when first needed: at most ROWS_PER_INSERT of them.
  const inserts = new StatementCache(db, insertOf);
  return {
    insertMany: db.transaction((rows: StampParams[]) => {
      for (let at = 0; at < rows.length; at += ROWS_PER_INSERT) {
        const chunk = rows.slice(at, at + ROWS_PER_INSERT);
        inserts.get(chunk.length).run(valuesOf(chunk));
      }
    }),
    get: db.prepare(`SELECT ${stampRowColumns} FROM stamps WHERE id = ?`),
    // Both read the index stamps_hash_search alone (migration 0010).
    findByHash: db.prepare(
      `SELECT id, created_at FROM stamps WHERE document_hash = ? AND hash_algorithm = ?
       ORDER BY id DESC LIMIT ?`,
    ),
    findByHashAfter: db.prepare(
      `SELECT id, created_at FROM stamps WHERE document_hash = ? AND hash_algorithm = ? AND id < ?
       ORDER BY id DESC LIMIT ?`,
    ),
    countByIdentity: db.prepare("SELECT count(*) AS n FROM stamps WHERE identity_id = ?"),
    count: db.prepare("SELECT total FROM stamp_count WHERE id = 1"),
  };
}
