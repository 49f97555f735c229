import type pg from "pg";
import type { IdentityRepository, StoredIdentity } from "../../identities/identity-repository.js";
import { type IdentityRow, identityOf, identityParams } from "../rows/account-rows.js";
import { postgresEncoding } from "../rows/values.js";

/** Signing identities in PostgreSQL. */
export class PostgresIdentityRepository implements IdentityRepository {
  constructor(private readonly pool: pg.Pool) {}

  async insert(identity: StoredIdentity): Promise<boolean> {
    // DO NOTHING: a taken id (or public key) inserts nothing, and the caller generates another key.
    const { rowCount } = await this.pool.query(
      `INSERT INTO identities (id, public_key, account_id, sealed_private_key, created_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      Object.values(identityParams(identity, postgresEncoding)),
    );
    return rowCount === 1;
  }

  async get(id: string): Promise<StoredIdentity | undefined> {
    const { rows } = await this.pool.query<IdentityRow>("SELECT * FROM identities WHERE id = $1", [id]);
    return rows[0] && identityOf(rows[0]);
  }
}
