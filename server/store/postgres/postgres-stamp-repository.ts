import type pg from "pg";
import { jcs } from "../../../core/jcs.js";
import type { ContentHash } from "../../hashing/algorithms.js";
import { stampLeafHash } from "../../proofs/stamp-leaf-hash.js";
import type {
  HashMatch,
  HashPage,
  StampRepository,
  StampStatus,
  StoredStamp,
} from "../../stamps/stamp-repository.js";
import { GroupCommit } from "../group-commit.js";

interface StampRow {
  id: string;
  account_id: string | null;
  identity_id: string | null;
  status: StampStatus;
  stamp_json: string;
  fingerprint_json: string | null;
}

/** Stamps in PostgreSQL. */
export class PostgresStampRepository implements StampRepository {
  /**
   * Concurrent inserts, committed together: one statement and one WAL flush per group (durable at
   * commit with PostgreSQL's default `synchronous_commit = on`).
   */
  readonly writes = new GroupCommit<StoredStamp>((stamps) => this.insertRows(stamps));

  constructor(private readonly pool: pg.Pool) {}

  insert(stamp: StoredStamp): Promise<void> {
    return this.writes.submit([stamp]);
  }

  insertMany(stamps: StoredStamp[]): Promise<void> {
    return this.writes.submit(stamps);
  }

  private async insertRows(stamps: StoredStamp[]): Promise<void> {
    // One statement over parallel arrays: one round trip and one transaction, committed (so durable)
    // before query() resolves, whatever the batch size.
    const rows = stamps.map(valuesOf);
    await this.pool.query(
      `INSERT INTO stamps (id, account_id, identity_id, created_at, hash_algorithm, document_hash, status,
         stamp_json, fingerprint_json, leaf_hash)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::text[], $6::text[],
         $7::text[], $8::text[], $9::text[], $10::bytea[])`,
      Array.from({ length: columnCount }, (_, column) => rows.map((row) => row[column])),
    );
  }

  async get(id: string): Promise<StoredStamp | undefined> {
    const { rows } = await this.pool.query<StampRow>(
      "SELECT id, account_id, identity_id, status, stamp_json, fingerprint_json FROM stamps WHERE id = $1",
      [id],
    );
    const row = rows[0];
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

  async findByHash(hash: ContentHash, page: HashPage): Promise<HashMatch[]> {
    // Two statements rather than `$3 IS NULL OR id < $3`, which a generic plan could not bound.
    const { rows } = await this.pool.query<{ id: string; created_at: Date }>(
      page.after === undefined
        ? `SELECT id, created_at FROM stamps WHERE document_hash = $1 AND hash_algorithm = $2
           ORDER BY id DESC LIMIT $3`
        : `SELECT id, created_at FROM stamps WHERE document_hash = $1 AND hash_algorithm = $2 AND id < $4
           ORDER BY id DESC LIMIT $3`,
      page.after === undefined
        ? [hash.hex, hash.algorithm, page.limit]
        : [hash.hex, hash.algorithm, page.limit, page.after],
    );
    return rows.map((row) => ({ id: row.id, createdAt: row.created_at.toISOString() }));
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

const columnCount = 10;

/** The values of one row, in the INSERT's column order. */
function valuesOf(stamp: StoredStamp): unknown[] {
  const { document } = stamp;
  const json = stamp.json ?? jcs(document);
  return [
    stamp.id,
    stamp.accountId,
    stamp.identityId,
    document.created_at,
    document.document.algorithm,
    document.document.hash,
    stamp.status,
    json,
    stamp.fingerprint === null ? null : JSON.stringify(stamp.fingerprint),
    // pg writes Buffers (not other Uint8Arrays) into a bytea[] literal.
    Buffer.from(stampLeafHash(json)),
  ];
}
