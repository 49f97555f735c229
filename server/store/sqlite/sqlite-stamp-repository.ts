import type Database from "better-sqlite3";
import { jcs } from "../../../sdk/src/verify/jcs.js";
import type { StampRepository, StampStatus, StoredStamp } from "../../stamps/stamp-repository.js";
import { GroupCommit } from "../group-commit.js";

interface StampRow {
  id: string;
  account_id: string | null;
  identity_id: string | null;
  created_at: string;
  hash_algorithm: string;
  document_hash: string;
  status: StampStatus;
  stamp_json: string;
  fingerprint_json: string | null;
}

/** Stamps in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteStampRepository implements StampRepository {
  private statements?: ReturnType<typeof prepare>;
  /** Concurrent inserts, committed together (synchronous = FULL: one fsync per group). */
  readonly writes = new GroupCommit<StampRow>((rows) => this.sql.insertMany(rows));

  constructor(private readonly db: Database.Database) {}

  private get sql() {
    this.statements ??= prepare(this.db);
    return this.statements;
  }

  insert(stamp: StoredStamp): Promise<void> {
    return this.writes.submit([rowOf(stamp)]);
  }

  insertMany(stamps: StoredStamp[]): Promise<void> {
    return this.writes.submit(stamps.map(rowOf));
  }

  async get(id: string): Promise<StoredStamp | undefined> {
    const row = this.sql.get.get(id) as StampRow | undefined;
    return (
      row && {
        id: row.id,
        accountId: row.account_id,
        identityId: row.identity_id,
        status: row.status,
        document: JSON.parse(row.stamp_json),
        fingerprint: row.fingerprint_json === null ? null : JSON.parse(row.fingerprint_json),
      }
    );
  }

  async countByIdentity(identityId: string): Promise<number> {
    return (this.sql.countByIdentity.get(identityId) as { n: number }).n;
  }
}

function rowOf(stamp: StoredStamp): StampRow {
  const { document } = stamp;
  return {
    id: stamp.id,
    account_id: stamp.accountId,
    identity_id: stamp.identityId,
    created_at: document.created_at,
    hash_algorithm: document.document.algorithm,
    document_hash: document.document.hash,
    status: stamp.status,
    stamp_json: stamp.json ?? jcs(document),
    fingerprint_json: stamp.fingerprint === null ? null : JSON.stringify(stamp.fingerprint),
  };
}

function prepare(db: Database.Database) {
  const insert = db.prepare(
    `INSERT INTO stamps (id, account_id, identity_id, created_at, hash_algorithm, document_hash, status,
         stamp_json, fingerprint_json)
       VALUES (@id, @account_id, @identity_id, @created_at, @hash_algorithm, @document_hash, @status,
         @stamp_json, @fingerprint_json)`,
  );
  return {
    insertMany: db.transaction((rows: StampRow[]) => {
      for (const row of rows) insert.run(row);
    }),
    get: db.prepare("SELECT * FROM stamps WHERE id = ?"),
    countByIdentity: db.prepare("SELECT count(*) AS n FROM stamps WHERE identity_id = ?"),
  };
}
