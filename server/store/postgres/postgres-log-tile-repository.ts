import type pg from "pg";
import type { LogTileRepository, StoredTile } from "../../log/log-tile-repository.js";
import { bufferOf, bytesOf } from "../rows/values.js";
import { transaction } from "./transaction.js";

/** Where a tiled log's files are, and the query of its entries' data (`data`) from $1 to $2 (excluded). */
interface TiledLogTables {
  tiles: string;
  entryData: string;
}

/** The transparency log: its entries' data are the batch roots. */
export const transparencyLogTables: TiledLogTables = {
  tiles: "log_tiles",
  entryData: `SELECT b.root AS data FROM log_entries e JOIN batches b ON b.id = e.batch_id
              WHERE e.idx >= $1 AND e.idx < $2 ORDER BY e.idx`,
};

/** The stamp log (docs/sigstore.md): its entries' data are the hashedrekord bodies. */
export const stampLogTables: TiledLogTables = {
  tiles: "stamp_log_tiles",
  entryData: "SELECT body AS data FROM stamp_log_entries WHERE idx >= $1 AND idx < $2 ORDER BY idx",
};

/** A tiled log's files in PostgreSQL; a write is one transaction. */
export class PostgresLogTileRepository implements LogTileRepository {
  private readonly tiles: string;

  constructor(
    private readonly pool: pg.Pool,
    private readonly tables: TiledLogTables = transparencyLogTables,
  ) {
    this.tiles = tables.tiles;
  }

  async put(tiles: readonly StoredTile[], prune: readonly string[]): Promise<void> {
    await transaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO ${this.tiles} (path, data) SELECT * FROM unnest($1::text[], $2::bytea[])
         ON CONFLICT (path) DO NOTHING`,
        [tiles.map((t) => t.path), tiles.map((t) => bufferOf(t.data))],
      );
      if (prune.length > 0)
        await client.query(`DELETE FROM ${this.tiles} WHERE path LIKE ANY ($1::text[])`, [
          prune.map((p) => `${p}%`),
        ]);
    });
  }

  async get(path: string): Promise<Uint8Array | undefined> {
    const { rows } = await this.pool.query<{ data: Buffer }>(
      `SELECT data FROM ${this.tiles} WHERE path = $1`,
      [path],
    );
    return rows[0] && bytesOf(rows[0].data);
  }

  async existing(paths: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ path: string }>(
      `SELECT path FROM ${this.tiles} WHERE path = ANY ($1::text[])`,
      [paths],
    );
    return new Set(rows.map((r) => r.path));
  }

  async paths(): Promise<string[]> {
    const { rows } = await this.pool.query<{ path: string }>(`SELECT path FROM ${this.tiles} ORDER BY path`);
    return rows.map((r) => r.path);
  }

  async entryData(from: number, to: number): Promise<Uint8Array[]> {
    const { rows } = await this.pool.query<{ data: Buffer }>(this.tables.entryData, [from, to]);
    return rows.map((r) => bytesOf(r.data));
  }
}
