import type Database from "better-sqlite3";
import type {
  IdempotencyId,
  IdempotencyRecord,
  IdempotencyRepository,
  ReserveOutcome,
  StoredResponse,
} from "../../idempotency/idempotency-repository.js";
import { type IdempotencyRow, idempotencyRecordOf, reservationParams } from "../rows/account-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

const where = "scope = @scope AND idempotency_key = @key AND operation = @operation";

/** Idempotency-Key records in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteIdempotencyRepository implements IdempotencyRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async reserve(record: IdempotencyRecord, now: Date): Promise<ReserveOutcome> {
    return this.db.transaction((): ReserveOutcome => {
      const params = reservationParams(record, sqliteEncoding);
      this.sql().deleteExpired.run({ ...params, now: sqliteEncoding.date(now) });
      if (this.sql().insert.run(params).changes === 1) return { reserved: true };
      return {
        reserved: false,
        existing: idempotencyRecordOf(this.sql().find.get(params) as IdempotencyRow),
      };
    })();
  }

  async relock(id: IdempotencyId, previous: Date, lockedUntil: Date): Promise<boolean> {
    const result = this.sql().relock.run({
      ...id,
      previous: previous.toISOString(),
      locked_until: lockedUntil.toISOString(),
    });
    return result.changes === 1;
  }

  async complete(id: IdempotencyId, response: StoredResponse): Promise<void> {
    this.sql().complete.run({
      ...id,
      status: response.status,
      headers: JSON.stringify(response.headers),
      body: response.body,
    });
  }

  async release(id: IdempotencyId): Promise<void> {
    this.sql().release.run(id);
  }

  async purgeExpired(now: Date, limit: number): Promise<number> {
    return this.sql().purge.run(now.toISOString(), limit).changes;
  }
}

function prepare(db: Database.Database) {
  return {
    deleteExpired: db.prepare(`DELETE FROM idempotency_keys WHERE ${where} AND expires_at <= @now`),
    insert: db.prepare(
      `INSERT INTO idempotency_keys (scope, idempotency_key, operation, fingerprint, locked_until, expires_at)
       VALUES (@scope, @key, @operation, @fingerprint, @locked_until, @expires_at)
       ON CONFLICT DO NOTHING`,
    ),
    find: db.prepare(`SELECT * FROM idempotency_keys WHERE ${where}`),
    relock: db.prepare(
      `UPDATE idempotency_keys SET locked_until = @locked_until
       WHERE ${where} AND status IS NULL AND locked_until = @previous`,
    ),
    complete: db.prepare(
      `UPDATE idempotency_keys SET status = @status, headers = @headers, body = @body WHERE ${where}`,
    ),
    release: db.prepare(`DELETE FROM idempotency_keys WHERE ${where} AND status IS NULL`),
    purge: db.prepare(
      `DELETE FROM idempotency_keys WHERE rowid IN
         (SELECT rowid FROM idempotency_keys WHERE expires_at <= ? LIMIT ?)`,
    ),
  };
}
