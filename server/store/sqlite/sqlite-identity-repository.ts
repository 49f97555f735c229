import type Database from "better-sqlite3";
import type { IdentityRepository, StoredIdentity } from "../../identities/identity-repository.js";
import { type IdentityRow, identityOf, identityParams } from "../rows/account-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/** Signing identities in SQLite; statements are prepared on first use (after migrate()). */
export class SqliteIdentityRepository implements IdentityRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async insert(identity: StoredIdentity): Promise<boolean> {
    // OR IGNORE: a taken id (or public key) inserts nothing, and the caller generates another key.
    const result = this.sql().insert.run(identityParams(identity, sqliteEncoding));
    return result.changes === 1;
  }

  async get(id: string): Promise<StoredIdentity | undefined> {
    const row = this.sql().get.get(id) as IdentityRow | undefined;
    return row && identityOf(row);
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
