import type Database from "better-sqlite3";
import type { ApiKeyInfo, AuthRepository, RevokeOutcome, StoredApiKey } from "../../auth/auth-repository.js";
import { type KeyRow, keyInfoColumns, keyInfoOf, keyParams, storedKeyOf } from "../rows/account-rows.js";
import { sqliteEncoding } from "../rows/values.js";
import { preparedOnFirstUse } from "./statements.js";

/**
 * Accounts and API keys in SQLite. Statements are prepared on first use (the tables exist only
 * after migrate()) and then reused, since a key is looked up on every request.
 */
export class SqliteAuthRepository implements AuthRepository {
  private readonly sql: () => ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {
    this.sql = preparedOnFirstUse(db, prepare);
  }

  async accountExists(id: string): Promise<boolean> {
    return this.sql().accountExists.get(id) !== undefined;
  }

  async insertKey(key: StoredApiKey, newAccount: boolean): Promise<void> {
    this.db.transaction(() => {
      if (newAccount) this.sql().insertAccount.run(key.accountId, sqliteEncoding.date(key.createdAt));
      this.sql().insertKey.run(keyParams(key, sqliteEncoding));
    })();
  }

  async findKey(id: string): Promise<StoredApiKey | undefined> {
    const row = this.sql().findKey.get(id) as KeyRow | undefined;
    return row && storedKeyOf(row);
  }

  async listKeys(): Promise<ApiKeyInfo[]> {
    return (this.sql().listKeys.all() as KeyRow[]).map(keyInfoOf);
  }

  async revokeKey(id: string, at: Date): Promise<RevokeOutcome> {
    if (this.sql().revokeKey.run(at.toISOString(), id).changes === 1) return "revoked";
    return this.sql().keyExists.get(id) ? "already_revoked" : "not_found";
  }
}

function prepare(db: Database.Database) {
  return {
    accountExists: db.prepare("SELECT 1 FROM accounts WHERE id = ?"),
    insertAccount: db.prepare("INSERT INTO accounts (id, created_at) VALUES (?, ?)"),
    insertKey: db.prepare(
      `INSERT INTO api_keys (${keyInfoColumns}, secret_hash)
       VALUES (@id, @account_id, @tier, @environment, @name, @created_at, @revoked_at, @secret_hash)`,
    ),
    findKey: db.prepare(`SELECT ${keyInfoColumns}, secret_hash FROM api_keys WHERE id = ?`),
    listKeys: db.prepare(`SELECT ${keyInfoColumns} FROM api_keys ORDER BY created_at, id`),
    keyExists: db.prepare("SELECT 1 FROM api_keys WHERE id = ?"),
    revokeKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
  };
}
