import type pg from "pg";
import type {
  KeyRingRepository,
  Revocation,
  RingKeyKind,
  StoredRingKey,
} from "../../keys/key-ring-repository.js";
import {
  type RingKeyRow,
  ringKeyColumns,
  ringKeyOf,
  ringKeyParams,
  ringOrder,
} from "../rows/key-ring-rows.js";
import { postgresEncoding } from "../rows/values.js";
import { transaction } from "./transaction.js";

const insert = `INSERT INTO key_ring (${ringKeyColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`;

/** The key ring in PostgreSQL. */
export class PostgresKeyRingRepository implements KeyRingRepository {
  constructor(private readonly pool: pg.Pool) {}

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

  async rotate(next: StoredRingKey, retiredUntil: Date): Promise<StoredRingKey | undefined> {
    return transaction(this.pool, async (client) => {
      // Two rotations of one kind at once take turns, and the second retires the first's key. Not
      // FOR UPDATE: once the first commits, its retired row no longer matches and the second would
      // find no active key. The lock is the transaction's; the query after it sees the first's commit.
      await client.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || ':key_ring:' || $1))", [
        next.kind,
      ]);
      const { rows } = await client.query<RingKeyRow>(
        "SELECT * FROM key_ring WHERE kind = $1 AND state = 'active'",
        [next.kind],
      );
      const active = rows[0];
      if (active) {
        await client.query(
          "UPDATE key_ring SET state = 'retired', not_after = $1 WHERE kind = $2 AND key_id = $3",
          [retiredUntil, active.kind, active.key_id],
        );
      }
      await client.query(insert, Object.values(ringKeyParams(next, postgresEncoding)));
      return active && { ...ringKeyOf(active), state: "retired" as const, notAfter: retiredUntil };
    });
  }

  async revoke(kind: RingKeyKind, keyId: string, revocation: Revocation): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `UPDATE key_ring SET state = 'revoked', revoked_at = $1, revocation_reason = $2
       WHERE kind = $3 AND key_id = $4 AND state <> 'active'`,
      [revocation.at, revocation.reason, kind, keyId],
    );
    return rowCount === 1;
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
