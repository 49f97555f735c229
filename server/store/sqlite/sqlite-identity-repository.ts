import type Database from "better-sqlite3";
import type { IdentityRepository, StoredIdentity } from "../../identities/identity-repository.js";

interface IdentityRow {
  id: string;
  public_key: string;
  account_id: string;
  sealed_private_key: Buffer;
  created_at: string;
}

/** Signing identities in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteIdentityRepository implements IdentityRepository {
  private statements?: ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {}

  private get sql() {
    this.statements ??= prepare(this.db);
    return this.statements;
  }

  async insert(identity: StoredIdentity): Promise<boolean> {
    // OR IGNORE: a taken id (or public key) inserts nothing, and the caller generates another key.
    const result = this.sql.insert.run({
      id: identity.id,
      public_key: identity.publicKey,
      account_id: identity.accountId,
      sealed_private_key: identity.sealedPrivateKey,
      created_at: identity.createdAt.toISOString(),
    } satisfies IdentityRow);
    return result.changes === 1;
  }

  async get(id: string): Promise<StoredIdentity | undefined> {
    const row = this.sql.get.get(id) as IdentityRow | undefined;
    return (
      row && {
        id: row.id,
        publicKey: row.public_key,
        accountId: row.account_id,
        sealedPrivateKey: row.sealed_private_key,
        createdAt: new Date(row.created_at),
      }
    );
  }
}

function prepare(db: Database.Database) {
  return {
    insert: db.prepare(
      `INSERT OR IGNORE INTO identities (id, public_key, account_id, sealed_private_key, created_at)
       VALUES (@id, @public_key, @account_id, @sealed_private_key, @created_at)`,
    ),
    get: db.prepare("SELECT * FROM identities WHERE id = ?"),
  };
}
