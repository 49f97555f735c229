import type Database from "better-sqlite3";
import type { LogTileRepository, StoredTile } from "../../log/log-tile-repository.js";
import { bufferOf, bytesOf } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** The tiled log's files in SQLite; a write is one transaction. */
export class SqliteLogTileRepository implements LogTileRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async put(tiles: readonly StoredTile[], prune: readonly string[]): Promise<void> {
    const { insert, prunePrefix } = this.sql();
    this.db.transaction(() => {
      for (const tile of tiles) insert.run(tile.path, bufferOf(tile.data));
      for (const prefix of prune) prunePrefix.run(`${prefix}%`);
    })();
  }

  async get(path: string): Promise<Uint8Array | undefined> {
    const row = this.sql().get.get(path) as { data: Buffer } | undefined;
    return row && bytesOf(row.data);
  }

  async existing(paths: readonly string[]): Promise<Set<string>> {
    const { has } = this.sql();
    return new Set(paths.filter((path) => has.get(path)));
  }

  async paths(): Promise<string[]> {
    return this.sql().paths.pluck().all() as string[];
  }

  async entryData(from: number, to: number): Promise<Uint8Array[]> {
    return (this.sql().entryData.pluck().all(from, to) as Buffer[]).map(bytesOf);
  }
}

function prepare(db: Database.Database) {
  return {
    insert: db.prepare("INSERT INTO log_tiles (path, data) VALUES (?, ?) ON CONFLICT (path) DO NOTHING"),
    prunePrefix: db.prepare("DELETE FROM log_tiles WHERE path LIKE ?"),
    get: db.prepare("SELECT data FROM log_tiles WHERE path = ?"),
    has: db.prepare("SELECT 1 FROM log_tiles WHERE path = ?"),
    paths: db.prepare("SELECT path FROM log_tiles ORDER BY path"),
    entryData: db.prepare(
      `SELECT b.root FROM log_entries e JOIN batches b ON b.id = e.batch_id
       WHERE e.idx >= ? AND e.idx < ? ORDER BY e.idx`,
    ),
  };
}
