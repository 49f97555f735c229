import type pg from "pg";
import type {
  KeyRingRepository,
  RingClock,
  RingKeyKind,
  SigningStates,
  StoredRingKey,
} from "../../keys/key-ring-repository.js";
import { type RingPlan, ringChangesOn } from "../../keys/ring-changes.js";
import {
  type RingKeyRow,
  ringKeyColumns,
  ringKeyOf,
  ringKeyParams,
  ringOrder,
  type SigningStateRow,
  signingStateColumns,
  signingStateOf,
} from "../rows/key-ring-rows.js";
import { postgresEncoding } from "../rows/values.js";
import { transaction } from "./transaction.js";

const insert = `INSERT INTO key_ring (${ringKeyColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

/** The key ring in PostgreSQL. */
export class PostgresKeyRingRepository implements KeyRingRepository {
  constructor(private readonly pool: pg.Pool) {
    ({ rotate: this.rotate, revoke: this.revoke } = ringChangesOn((now, plan) => this.change(now, plan)));
  }

  async list(): Promise<StoredRingKey[]> {
    const { rows } = await this.pool.query<RingKeyRow>(`SELECT * FROM key_ring ${ringOrder}`);
    return rows.map(ringKeyOf);
  }

  async register(key: StoredRingKey): Promise<boolean> {
    // DO NOTHING: a second active key of a kind (another instance registered first) inserts nothing.
    const { rowCount } = await this.pool.query(
      `${insert} ON CONFLICT DO NOTHING`,
      Object.values(ringKeyParams(key, postgresEncoding)),
    );
    return rowCount === 1;
  }

  readonly rotate: KeyRingRepository["rotate"];
  readonly revoke: KeyRingRepository["revoke"];

  async signingStates(): Promise<SigningStates> {
    // statement_timestamp(): when this read began. A ring change holds ACCESS EXCLUSIVE from
    // before it reads its time, so a read that misses the change began before that time.
    const { rows } = await this.pool.query<SigningStateRow & { started_at: Date }>(
      `SELECT ${signingStateColumns}, statement_timestamp() AS started_at FROM key_ring WHERE kind <> 'tsa'`,
    );
    return { keys: rows.map(signingStateOf), startedAt: rows[0]?.started_at };
  }

  /**
   * One change of the ring in one transaction: the table locked against every read and write
   * (signers' reads wait the few milliseconds it takes), the time read under the lock and never
   * earlier than the database's clock, the ring read, `plan` written.
   */
  private change(now: RingClock, plan: RingPlan) {
    return transaction(this.pool, async (client) => {
      await client.query("LOCK TABLE key_ring IN ACCESS EXCLUSIVE MODE");
      const { rows: clock } = await client.query<{ at: Date }>(
        "SELECT greatest(clock_timestamp(), $1::timestamptz) AS at",
        [now()],
      );
      const at = clock[0]!.at;
      const ring = (await client.query<RingKeyRow>(`SELECT * FROM key_ring ${ringOrder}`)).rows.map(
        ringKeyOf,
      );
      const changes = plan(ring, at);
      for (const r of changes?.retire ?? []) {
        await client.query(
          "UPDATE key_ring SET state = 'retired', not_after = $1 WHERE kind = $2 AND key_id = $3",
          [r.notAfter, r.kind, r.keyId],
        );
      }
      for (const key of changes?.add ?? []) {
        await client.query(insert, Object.values(ringKeyParams(key, postgresEncoding)));
      }
      for (const r of changes?.revoke ?? []) {
        await client.query(
          `UPDATE key_ring SET state = 'revoked', revoked_at = $1, revocation_reason = $2
           WHERE kind = $3 AND key_id = $4`,
          [r.revokedAt, r.reason, r.kind, r.keyId],
        );
      }
      return { ring, changes, at };
    });
  }

  async sealPrivateKey(kind: RingKeyKind, keyId: string, sealed: Buffer): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE key_ring SET sealed_private_key = $1
       WHERE kind = $2 AND key_id = $3 AND sealed_private_key IS NULL`,
      [sealed, kind, keyId],
    );
    return rowCount === 1;
  }

  async check(name: string): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query<{ value: Buffer }>(
      "SELECT value FROM key_checks WHERE name = $1",
      [name],
    );
    return rows[0]?.value;
  }

  async saveCheck(name: string, value: Buffer): Promise<void> {
    await this.pool.query("INSERT INTO key_checks (name, value) VALUES ($1, $2) ON CONFLICT DO NOTHING", [
      name,
      value,
    ]);
  }
}
