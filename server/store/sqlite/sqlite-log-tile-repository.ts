import type Database from "better-sqlite3";
import type { LogTileRepository, StoredTile } from "../../log/log-tile-repository.js";
import { bufferOf, bytesOf } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** Where a tiled log's files are, and the query of its entries' data from index ? to ? (excluded). */
interface TiledLogTables {
  tiles: string;
  entryData: string;
}

/** The transparency log: its entries' data are the batch roots. */
export const transparencyLogTables: TiledLogTables = {
  tiles: "log_tiles",
  entryData: `SELECT b.root FROM log_entries e JOIN batches b ON b.id = e.batch_id
              WHERE e.idx >= ? AND e.idx < ? ORDER BY e.idx`,
};

/** The stamp log (docs/sigstore.md): its entries' data are the hashedrekord bodies. */
export const stampLogTables: TiledLogTables = {
  tiles: "stamp_log_tiles",
  entryData: "SELECT body FROM stamp_log_entries WHERE idx >= ? AND idx < ? ORDER BY idx",
};

/** A tiled log's files in SQLite; a write is one transaction. */
export class SqliteLogTileRepository implements LogTileRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(
    private readonly db: Database.Database,
    tables: TiledLogTables = transparencyLogTables,
  ) {
    this.sql = preparedOnFirstUse(db, (connection) => prepare(connection, tables));
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

function prepare(db: Database.Database, { tiles, entryData }: TiledLogTables) {
  return {
    insert: db.prepare(`INSERT INTO ${tiles} (path, data) VALUES (?, ?) ON CONFLICT (path) DO NOTHING`),
    prunePrefix: db.prepare(`DELETE FROM ${tiles} WHERE path LIKE ?`),
    get: db.prepare(`SELECT data FROM ${tiles} WHERE path = ?`),
    has: db.prepare(`SELECT 1 FROM ${tiles} WHERE path = ?`),
    paths: db.prepare(`SELECT path FROM ${tiles} ORDER BY path`),
    entryData: db.prepare(entryData),
  };
}
