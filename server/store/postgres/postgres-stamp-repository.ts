import type pg from "pg";
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

/** Stamps in PostgreSQL. */
export class PostgresStampRepository implements StampRepository {
  /**
   * Concurrent inserts, committed together: one statement and one WAL flush per group (durable at
   * commit with PostgreSQL's default `synchronous_commit = on`).
   */
  readonly writes = new GroupCommit<StampParams>((rows) => this.insertRows(rows));

  constructor(private readonly pool: pg.Pool) {}

  insert(stamp: StoredStamp): Promise<void> {
    return this.writes.submit([stampParams(stamp)]);
  }

  insertMany(stamps: StoredStamp[]): Promise<void> {
    return this.writes.submit(stamps.map(stampParams));
  }

  private async insertRows(rows: StampParams[]): Promise<void> {
    // One statement over parallel arrays (one a column, in stampColumns' order): one round trip and
    // one transaction, committed (so durable) before query() resolves, whatever the batch size.
    await this.pool.query(
      `INSERT INTO stamps (${stampColumns.join(", ")})
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[],
         $7::text[], $8::text[], $9::text[], $10::bytea[], $11::text[])`,
      stampColumns.map((column) => rows.map((row) => row[column])),
    );
  }

  async get(id: string): Promise<StoredStamp | undefined> {
    const { rows } = await this.pool.query<StampRow>(`SELECT ${stampRowColumns} FROM stamps WHERE id = $1`, [
      id,
    ]);
    return rows[0] && storedStampOf(rows[0]);
  }

  async findByHash(hash: ContentHash, page: HashPage): Promise<HashMatch[]> {
    // Two statements rather than `$3 IS NULL OR id < $3`, which a generic plan could not bound.
    const after = page.after === undefined ? "" : "AND id < $4";
    const ofDocument = `SELECT id, created_at FROM stamps WHERE document_hash = $1 AND hash_algorithm = $2 ${after}
      ORDER BY id DESC LIMIT $3`;
    // A SHA-256 also finds uploads by their content's SHA-256: each side reads a page from its own
    // index (0010's, 0016's), so a page still costs the same whatever the number of stamps.
    const sql =
      hash.algorithm === "sha256"
        ? `SELECT id, created_at FROM ((${ofDocument}) UNION (SELECT id, created_at FROM stamps
             WHERE content_sha256 = $1 ${after} ORDER BY id DESC LIMIT $3)) AS found ORDER BY id DESC LIMIT $3`
        : ofDocument;
    const params = [hash.hex, hash.algorithm, page.limit];
    const { rows } = await this.pool.query<{ id: string; created_at: Date }>(
      sql,
      page.after === undefined ? params : [...params, page.after],
    );
    return rows.map(hashMatchOf);
  }

  async countByIdentity(identityId: string): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM stamps WHERE identity_id = $1",
      [identityId],
    );
    return rows[0]!.n;
  }

  async count(): Promise<number> {
    // bigint sums come back as text; a count of stamps stays far below 2^53.
    const { rows } = await this.pool.query<{ total: string }>("SELECT sum(total) AS total FROM stamp_count");
    return Number(rows[0]!.total);
  }
}
