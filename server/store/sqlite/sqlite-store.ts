import { readdirSync, readFileSync } from "node:fs";
import type Database from "better-sqlite3";
import { createPrivateDatabaseFile } from "../file-modes.js";
import type { Store } from "../store.js";
import { StoreAvailability } from "../store-availability.js";
import { beginTransactionsImmediately, openConnection } from "./connection.js";
import { DiskFull, startupDiskFull } from "./disk-full.js";
import { SqliteAnchorRepository } from "./sqlite-anchor-repository.js";
import { SqliteAuthRepository } from "./sqlite-auth-repository.js";
import { SqliteIdempotencyRepository } from "./sqlite-idempotency-repository.js";
import { SqliteIdentityRepository } from "./sqlite-identity-repository.js";
import { SqliteKeyRingRepository } from "./sqlite-key-ring-repository.js";
import { SqliteLogRepository } from "./sqlite-log-repository.js";
import { SqliteLogTileRepository, stampLogTables } from "./sqlite-log-tile-repository.js";
import { SqliteProofRepository } from "./sqlite-proof-repository.js";
import { SqliteStampLogRepository } from "./sqlite-stamp-log-repository.js";
import { SqliteStampRepository } from "./sqlite-stamp-repository.js";
import { SqliteVaultRepository } from "./sqlite-vault-repository.js";

const migrationsDir = new URL("./migrations/", import.meta.url);

/**
 * The embedded default: one SQLite file in WAL mode. better-sqlite3 is synchronous, which suits
 * SQLite (no network round trips); methods stay async to share the Store interface with PostgreSQL.
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  readonly db: Database.Database;
  readonly auth: SqliteAuthRepository;
  readonly stamps: SqliteStampRepository;
  readonly identities: SqliteIdentityRepository;
  readonly vaults: SqliteVaultRepository;
  readonly idempotency: SqliteIdempotencyRepository;
  readonly proofs: SqliteProofRepository;
  readonly log: SqliteLogRepository;
  readonly logTiles: SqliteLogTileRepository;
  readonly stampLog: SqliteStampLogRepository;
  readonly stampLogTiles: SqliteLogTileRepository;
  readonly anchors: SqliteAnchorRepository;
  readonly keyRing: SqliteKeyRingRepository;
  readonly availability = new StoreAvailability();

  /**
   * `writerThread`: commit stamp groups on a thread of their own (SQLITE_WRITER_THREAD; files
   * only). `retryAfterSeconds`: STORE_RETRY_AFTER_SECONDS, the wait a `storage_full` answer asks for.
   */
  constructor(
    readonly path: string,
    {
      writerThread = true,
      retryAfterSeconds = 2,
    }: { writerThread?: boolean; retryAfterSeconds?: number } = {},
  ) {
    // 0600 (folder 0700): vault keys and metadata are for this user only; -wal and -shm follow.
    if (path !== ":memory:") createPrivateDatabaseFile(path);
    try {
      this.db = openConnection(path);
    } catch (err) {
      throw startupDiskFull(err, path);
    }
    // The stamp writer thread writes the same file through a connection of its own.
    beginTransactionsImmediately(this.db);
    // Every repository's failures pass through the one translation of a full disk.
    const diskFull = new DiskFull(this.db, this.availability, { retryAfterSeconds });
    this.auth = diskFull.guard(new SqliteAuthRepository(this.db));
    this.stamps = diskFull.guard(new SqliteStampRepository(this.db, { writerThread, diskFull }));
    this.identities = diskFull.guard(new SqliteIdentityRepository(this.db));
    this.vaults = diskFull.guard(new SqliteVaultRepository(this.db));
    this.idempotency = diskFull.guard(new SqliteIdempotencyRepository(this.db));
    this.proofs = diskFull.guard(new SqliteProofRepository(this.db));
    this.log = diskFull.guard(new SqliteLogRepository(this.db));
    this.logTiles = diskFull.guard(new SqliteLogTileRepository(this.db));
    this.stampLog = diskFull.guard(new SqliteStampLogRepository(this.db));
    this.stampLogTiles = diskFull.guard(new SqliteLogTileRepository(this.db, stampLogTables));
    this.anchors = diskFull.guard(new SqliteAnchorRepository(this.db));
    this.keyRing = diskFull.guard(new SqliteKeyRingRepository(this.db));
  }

  /** Run at start only: a full disk stops the start with one line (startupDiskFull). */
  async migrate(): Promise<void> {
    try {
      this.applyMigrations();
    } catch (err) {
      throw startupDiskFull(err, this.path);
    }
  }

  private applyMigrations(): void {
    this.db.exec(
      "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)",
    );
    const applied = new Set(
      this.db
        .prepare("SELECT name FROM schema_migrations")
        .all()
        .map((row) => (row as { name: string }).name),
    );
    const pending = readdirSync(migrationsDir)
      .filter((f) => f.endsWith(".sql") && !applied.has(f))
      .sort();
    const record = this.db.prepare("INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)");
    for (const name of pending) {
      const sql = readFileSync(new URL(name, migrationsDir), "utf8");
      this.db.transaction(() => {
        this.db.exec(sql);
        record.run(name, new Date().toISOString());
      })();
    }
  }

  async ping(): Promise<void> {
    this.db.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    this.availability.stop();
    await this.stamps.close();
    if (this.db.open) this.db.close();
  }
}
