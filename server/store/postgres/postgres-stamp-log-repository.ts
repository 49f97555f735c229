import type pg from "pg";
import type {
  NewOutsideTimestamp,
  NewStampLogEntry,
  OutsideTimestamp,
  StampLogEntry,
  StampLogRepository,
} from "../../sigstore/stamp-log-repository.js";
import {
  entryWithOutsideTimestamp,
  type OutsideTimestampRow,
  outsideTimestampOf,
  type StampLogEntryRow,
  stampLogEntryOf,
} from "../rows/stamp-log-rows.js";
import { bufferOf, bytesOf } from "../rows/values.js";
import { PostgresCheckpoints } from "./postgres-checkpoints.js";
import { transaction } from "./transaction.js";

/**
 * The stamp log in PostgreSQL. An append holds an EXCLUSIVE lock on `stamp_log_entries` for its
 * transaction, as the transparency log's does: appenders on any instance take turns, so there is
 * one sequence and never two entries at one index. A trigger refuses updates and deletes.
 */
export class PostgresStampLogRepository extends PostgresCheckpoints implements StampLogRepository {
  constructor(pool: pg.Pool) {
    super(pool, "stamp_log_checkpoints");
  }

  async append(entries: readonly NewStampLogEntry[], now: Date): Promise<number> {
    return transaction(this.pool, async (client) => {
      await client.query("LOCK TABLE stamp_log_entries IN EXCLUSIVE MODE");
      const { rows } = await client.query<{ size: number; logged: string[] }>(
        `SELECT (SELECT coalesce(max(idx) + 1, 0) FROM stamp_log_entries) AS size,
                (SELECT coalesce(array_agg(stamp_id), '{}') FROM stamp_log_entries WHERE stamp_id = ANY($1)) AS logged`,
        [entries.map((e) => e.stampId)],
      );
      const { size, logged } = rows[0]!;
      const fresh = entries.filter((e) => !logged.includes(e.stampId));
      if (fresh.length === 0) return size;
      await client.query(
        `INSERT INTO stamp_log_entries (idx, stamp_id, body, leaf_hash, appended_at)
         SELECT idx, stamp_id, body, leaf_hash, $5
           FROM unnest($1::int[], $2::text[], $3::bytea[], $4::bytea[]) AS e (idx, stamp_id, body, leaf_hash)`,
        [
          fresh.map((_, i) => size + i),
          fresh.map((e) => e.stampId),
          fresh.map((e) => bufferOf(e.body)),
          fresh.map((e) => bufferOf(e.leafHash)),
          now,
        ],
      );
      return size + fresh.length;
    });
  }

  async entryOf(stampId: string): Promise<StampLogEntry | undefined> {
    const { rows } = await this.pool.query<StampLogEntryRow>(`${entryWithOutsideTimestamp}$1`, [stampId]);
    return rows[0] && stampLogEntryOf(rows[0]);
  }

  async saveOutsideTimestamp(
    stampId: string,
    token: NewOutsideTimestamp,
    now: Date,
  ): Promise<OutsideTimestamp> {
    return transaction(this.pool, async (client) => {
      const signer = bufferOf(token.signerSha256);
      // The first token kept for a stamp stays its token; a chain is kept once per signer.
      await client.query(
        `INSERT INTO outside_tsa_chains (signer_sha256, chain_pem, first_used_at) VALUES ($1, $2, $3)
         ON CONFLICT (signer_sha256) DO NOTHING`,
        [signer, token.chainPem, now],
      );
      await client.query(
        `INSERT INTO stamp_log_outside_timestamps (stamp_id, response, gen_time, signer_sha256)
         VALUES ($1, $2, $3, $4) ON CONFLICT (stamp_id) DO NOTHING`,
        [stampId, bufferOf(token.response), token.genTime, signer],
      );
      const { rows } = await client.query<OutsideTimestampRow>(
        "SELECT response, gen_time FROM stamp_log_outside_timestamps WHERE stamp_id = $1",
        [stampId],
      );
      return outsideTimestampOf(rows[0]!);
    });
  }

  async outsideTsaChains(): Promise<string[]> {
    const { rows } = await this.pool.query<{ chain_pem: string }>(
      "SELECT chain_pem FROM outside_tsa_chains ORDER BY first_used_at, signer_sha256",
    );
    return rows.map((r) => r.chain_pem);
  }

  async leafHashesFrom(from: number): Promise<Uint8Array[]> {
    const { rows } = await this.pool.query<{ leaf_hash: Buffer }>(
      "SELECT leaf_hash FROM stamp_log_entries WHERE idx >= $1 ORDER BY idx",
      [from],
    );
    return rows.map((r) => bytesOf(r.leaf_hash));
  }
}
