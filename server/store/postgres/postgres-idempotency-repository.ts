import type pg from "pg";
import type {
  IdempotencyId,
  IdempotencyRecord,
  IdempotencyRepository,
  ReserveOutcome,
  StoredResponse,
} from "../../idempotency/idempotency-repository.js";
import { type IdempotencyRow, idempotencyRecordOf, reservationParams } from "../rows/account-rows.js";
import { postgresEncoding } from "../rows/values.js";
import { transaction } from "./transaction.js";

const where = "scope = $1 AND idempotency_key = $2 AND operation = $3";
const idValues = (id: IdempotencyId) => [id.scope, id.key, id.operation];

/** Idempotency-Key records in PostgreSQL. */
export class PostgresIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly pool: pg.Pool) {}

  async reserve(record: IdempotencyRecord, now: Date): Promise<ReserveOutcome> {
    return transaction(this.pool, async (client): Promise<ReserveOutcome> => {
      await client.query(`DELETE FROM idempotency_keys WHERE ${where} AND expires_at <= $4`, [
        ...idValues(record),
        now,
      ]);
      // Each statement sees what committed before it (READ COMMITTED): the holder of the key may
      // release it between a conflicting INSERT and the SELECT, and then the INSERT is tried again.
      for (;;) {
        if (await this.insert(client, record)) return { reserved: true };
        const { rows } = await client.query<IdempotencyRow>(
          `SELECT * FROM idempotency_keys WHERE ${where}`,
          idValues(record),
        );
        if (rows[0]) return { reserved: false, existing: idempotencyRecordOf(rows[0]) };
      }
    });
  }

  /** Waits for a concurrent first request holding the same key to commit, then inserts nothing. */
  private async insert(client: pg.PoolClient, record: IdempotencyRecord): Promise<boolean> {
    const { rowCount } = await client.query(
      `INSERT INTO idempotency_keys (scope, idempotency_key, operation, fingerprint, locked_until, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
      Object.values(reservationParams(record, postgresEncoding)),
    );
    return rowCount === 1;
  }

  async relock(id: IdempotencyId, previous: Date, lockedUntil: Date): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE idempotency_keys SET locked_until = $5
       WHERE ${where} AND status IS NULL AND locked_until = $4`,
      [...idValues(id), previous, lockedUntil],
    );
    return rowCount === 1;
  }

  async complete(id: IdempotencyId, response: StoredResponse): Promise<void> {
    await this.pool.query(`UPDATE idempotency_keys SET status = $4, headers = $5, body = $6 WHERE ${where}`, [
      ...idValues(id),
      response.status,
      JSON.stringify(response.headers),
      response.body,
    ]);
  }

  async release(id: IdempotencyId): Promise<void> {
    await this.pool.query(`DELETE FROM idempotency_keys WHERE ${where} AND status IS NULL`, idValues(id));
  }

  async purgeExpired(now: Date, limit: number): Promise<number> {
    const { rowCount } = await this.pool.query(
      `DELETE FROM idempotency_keys WHERE (scope, idempotency_key, operation) IN
         (SELECT scope, idempotency_key, operation FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
      [now, limit],
    );
    return rowCount ?? 0;
  }
}
