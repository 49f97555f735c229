import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { Store } from "../store.js";

const migrationsDir = new URL("./migrations/", import.meta.url);

/**
 * The embedded default: one SQLite file in WAL mode. better-sqlite3 is synchronous, which suits
 * SQLite (no network round trips); methods stay async to share the Store interface with PostgreSQL.
 */
export class SqliteStore implements Store {
  readonly kind = "sqlite" as const;
  readonly db: Database.Database;

  constructor(readonly path: string) {
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma("journal_mode = WAL");
    // FULL: a transaction acknowledged to a client survives power loss, not only a process crash.
    this.db.pragma("synchronous = FULL");
    this.db.pragma("foreign_keys = ON");
    this.db.pragma("busy_timeout = 5000");
  }

  async migrate(): Promise<void> {
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
    if (this.db.open) this.db.close();
  }
}
