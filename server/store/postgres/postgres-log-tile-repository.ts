import type pg from "pg";
import type { LogTileRepository, StoredTile } from "../../log/log-tile-repository.js";
import { bufferOf, bytesOf } from "../rows/values.js";
import { transaction } from "./transaction.js";

/** The tiled log's files in PostgreSQL; a write is one transaction. */
export class PostgresLogTileRepository implements LogTileRepository {
  constructor(private readonly pool: pg.Pool) {}

  async put(tiles: readonly StoredTile[], prune: readonly string[]): Promise<void> {
    await transaction(this.pool, async (client) => {
      await client.query(
        `INSERT INTO log_tiles (path, data) SELECT * FROM unnest($1::text[], $2::bytea[])
         ON CONFLICT (path) DO NOTHING`,
        [tiles.map((t) => t.path), tiles.map((t) => bufferOf(t.data))],
      );
      if (prune.length > 0)
        await client.query("DELETE FROM log_tiles WHERE path LIKE ANY ($1::text[])", [
          prune.map((p) => `${p}%`),
        ]);
    });
  }

  async get(path: string): Promise<Uint8Array | undefined> {
    const { rows } = await this.pool.query<{ data: Buffer }>("SELECT data FROM log_tiles WHERE path = $1", [
      path,
    ]);
    return rows[0] && bytesOf(rows[0].data);
  }

  async existing(paths: readonly string[]): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ path: string }>(
      "SELECT path FROM log_tiles WHERE path = ANY ($1::text[])",
      [paths],
    );
    return new Set(rows.map((r) => r.path));
  }

  async paths(): Promise<string[]> {
    const { rows } = await this.pool.query<{ path: string }>("SELECT path FROM log_tiles ORDER BY path");
    return rows.map((r) => r.path);
  }

  async entryData(from: number, to: number): Promise<Uint8Array[]> {
    const { rows } = await this.pool.query<{ root: Buffer }>(
      `SELECT b.root FROM log_entries e JOIN batches b ON b.id = e.batch_id
       WHERE e.idx >= $1 AND e.idx < $2 ORDER BY e.idx`,
      [from, to],
    );
    return rows.map((r) => bytesOf(r.root));
  }
}
