import type pg from "pg";
import type { IdentityRepository, StoredIdentity } from "../../identities/identity-repository.js";

interface IdentityRow {
  id: string;
  public_key: string;
  account_id: string;
  sealed_private_key: Buffer;
  created_at: Date;
}

/** Signing identities in PostgreSQL. */
export class PostgresIdentityRepository implements IdentityRepository {
  constructor(private readonly pool: pg.Pool) {}

  async insert(identity: StoredIdentity): Promise<boolean> {
    // DO NOTHING: a taken id (or public key) inserts nothing, and the caller generates another key.
    const { rowCount } = await this.pool.query(
      `INSERT INTO identities (id, public_key, account_id, sealed_private_key, created_at)
       VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
      [identity.id, identity.publicKey, identity.accountId, identity.sealedPrivateKey, identity.createdAt],
    );
    return rowCount === 1;
  }

  async get(id: string): Promise<StoredIdentity | undefined> {
    const { rows } = await this.pool.query<IdentityRow>("SELECT * FROM identities WHERE id = $1", [id]);
    const row = rows[0];
    return (
      row && {
        id: row.id,
        publicKey: row.public_key,
        accountId: row.account_id,
        sealedPrivateKey: row.sealed_private_key,
        createdAt: row.created_at,
      }
    );
  }
}
