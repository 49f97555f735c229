import type Database from "better-sqlite3";
import type { ContentHash } from "../../../core/content-hash.js";
import type { HashMatch, HashPage, StampRepository, StoredStamp } from "../../stamps/stamp-repository.js";
import { type CommitGroup, GroupCommit } from "../group-commit.js";
import {
  hashMatchOf,
  type StampParams,
  type StampRow,
  stampColumns,
  stampParams,
  stampRowColumns,
  storedStampOf,
} from "../rows/stamp-rows.js";
import type { DiskFull } from "./disk-full.js";
import { type RowTarget, rowInserter, valuesOf } from "./row-inserts.js";
import { WriterThread } from "./stamp-writer.js";
import { preparedOnFirstUse } from "./statements.js";

const target: RowTarget = { table: "stamps", columns: stampColumns };

/** Stamps in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteStampRepository implements StampRepository {
  private readonly sql: () => ReturnType<typeof prepare>;
  /**
   * Where a database file's stamps are committed: a thread of their own with its own connection
   * (stamp-writer.ts), so the event loop does not wait through each group's INSERTs and fsync.
   * An in-memory database cannot be shared with another connection: its stamps are committed here,
   * as are everyone's with SQLITE_WRITER_THREAD=false.
   */
  private readonly thread: WriterThread | undefined;
  /** Concurrent inserts, committed together (synchronous = FULL: one fsync per group). */
  readonly writes: GroupCommit<StampParams>;

  /**
   * `diskFull`: a group's failure on a full disk, on either connection, becomes `storage_full` before
   * the group commit sees it, so the whole group fails at once instead of each write in turn.
   */
  constructor(
    db: Database.Database,
    { writerThread = true, diskFull }: { writerThread?: boolean; diskFull?: DiskFull } = {},
  ) {
    this.sql = preparedOnFirstUse(db, prepare);
    this.thread = db.memory || !writerThread ? undefined : new WriterThread({ path: db.name, target });
    const commit = this.thread ? committedBy(this.thread) : committedHere(db);
    this.writes = new GroupCommit(diskFull ? reportingDiskFull(commit, diskFull) : commit);
  }

  insert(stamp: StoredStamp): Promise<void> {
    return this.writes.submit([stampParams(stamp)]);
  }

  insertMany(stamps: StoredStamp[]): Promise<void> {
    return this.writes.submit(stamps.map(stampParams));
  }

  /** Writes what is queued, then stops the writer thread: call before closing the connection. */
  async close(): Promise<void> {
    await this.writes.drain();
    await this.thread?.close();
  }

  async get(id: string): Promise<StoredStamp | undefined> {
    const row = this.sql().get.get(id) as StampRow | undefined;
    return row && storedStampOf(row);
  }

  async findByHash(hash: ContentHash, page: HashPage): Promise<HashMatch[]> {
    const sql = this.sql();
    const sha256 = hash.algorithm === "sha256";
    const params = { hex: hash.hex, algorithm: hash.algorithm, limit: page.limit };
    const rows = (
      page.after === undefined
        ? (sha256 ? sql.findBySha256 : sql.findByHash).all(params)
        : (sha256 ? sql.findBySha256After : sql.findByHashAfter).all({ ...params, after: page.after })
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

/** Commits in the writer thread: the event loop runs on meanwhile. */
const committedBy =
  (thread: WriterThread): CommitGroup<StampParams> =>
  (rows) =>
    thread.commit(valuesOf(rows, stampColumns));

/** `commit`, with a full disk answered as `storage_full` and a commit as proof the disk writes again. */
function reportingDiskFull<T>(commit: CommitGroup<T>, diskFull: DiskFull): CommitGroup<T> {
  return async (rows) => {
    try {
      await commit(rows);
    } catch (err) {
      throw diskFull.failure(err);
    }
    diskFull.written();
  };
}

/** Commits on the main connection, holding the event loop through the INSERTs and the fsync. */
function committedHere(db: Database.Database): CommitGroup<StampParams> {
  let insert: ((values: unknown[]) => void) | undefined;
  return (rows) => {
    insert ??= rowInserter(db, target);
    insert(valuesOf(rows, stampColumns));
  };
}

const ofDocument =
  "SELECT id, created_at FROM stamps WHERE document_hash = @hex AND hash_algorithm = @algorithm";

/** A page of the stamps of a SHA-256: of the document's hash, or of an upload's content (`after`: a cursor's condition). */
const bySha256 = (after: string) =>
  `SELECT id, created_at FROM (${ofDocument} ${after} ORDER BY id DESC LIMIT @limit)
   UNION SELECT id, created_at FROM (SELECT id, created_at FROM stamps WHERE content_sha256 = @hex ${after}
     ORDER BY id DESC LIMIT @limit)
   ORDER BY id DESC LIMIT @limit`;

function prepare(db: Database.Database) {
  return {
    get: db.prepare(`SELECT ${stampRowColumns} FROM stamps WHERE id = ?`),
    // Both read the index stamps_hash_search alone (migration 0010).
    findByHash: db.prepare(`${ofDocument} ORDER BY id DESC LIMIT @limit`),
    findByHashAfter: db.prepare(`${ofDocument} AND id < @after ORDER BY id DESC LIMIT @limit`),
    // A SHA-256 also finds uploads by their content's SHA-256: each side reads a page from its own
    // index (0010's, 0016's), so a page still costs the same whatever the number of stamps.
    findBySha256: db.prepare(bySha256("")),
    findBySha256After: db.prepare(bySha256("AND id < @after")),
    countByIdentity: db.prepare("SELECT count(*) AS n FROM stamps WHERE identity_id = ?"),
    count: db.prepare("SELECT total FROM stamp_count WHERE id = 1"),
  };
}
