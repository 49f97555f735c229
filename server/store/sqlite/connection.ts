import Database from "better-sqlite3";

/**
 * How long a statement waits for another connection's write lock before failing with SQLITE_BUSY:
 * the stamp writer thread (stamp-writer-thread.ts) and the main connection write the same file,
 * and each waits out the other's commit (one fsync, a few milliseconds) rather than fail.
 */
const BUSY_TIMEOUT_MS = 5000;

/**
 * A connection to the database file with the settings every connection to it shares: the main
 * thread's and the stamp writer thread's.
 */
export function openConnection(path: string): Database.Database {
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  // FULL, not NORMAL: in WAL mode NORMAL syncs the WAL only at checkpoints, so the latest commits
  // survive a process crash but not a power loss or an OS crash, and an acknowledged stamp must
  // survive both. FULL syncs the WAL at every commit; group commit (../group-commit.ts) makes that
  // one fsync per group of concurrent stamps rather than one per stamp.
  db.pragma("synchronous = FULL");
  db.pragma("foreign_keys = ON");
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Freed content is overwritten with zeros, so a burned vault's key does not linger in the file.
  db.pragma("secure_delete = ON");
  return db;
}

/**
 * Makes every transaction of `db` begin IMMEDIATE (take the write lock at BEGIN, waiting for it
 * as long as the busy timeout allows). With a second connection writing the same file, a deferred
 * transaction that reads before it writes fails at its first write with SQLITE_BUSY, without
 * waiting: SQLite cannot let its older snapshot write after another connection's commit, nor make
 * it wait while it holds a read lock. A transaction that only writes loses nothing by it.
 */
export function beginTransactionsImmediately(db: Database.Database): void {
  const transaction = db.transaction.bind(db);
  // The immediate variant carries the deferred, immediate and exclusive ones as properties too.
  db.transaction = ((fn: Parameters<typeof transaction>[0]) =>
    transaction(fn).immediate) as typeof db.transaction;
}
