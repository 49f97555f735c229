import type Database from "better-sqlite3";
import type { ApiKeyInfo, AuthRepository, RevokeOutcome, StoredApiKey } from "../../auth/auth-repository.js";
import type { KeyEnvironment } from "../../auth/key-format.js";
import type { KeyTier } from "../../auth/principal.js";

interface KeyRow {
  id: string;
  account_id: string;
  tier: KeyTier;
  environment: KeyEnvironment;
  name: string | null;
  secret_hash: Buffer;
  created_at: string;
  revoked_at: string | null;
}

const infoColumns = "id, account_id, tier, environment, name, created_at, revoked_at";

/**
 * Accounts and API keys in SQLite. Statements are prepared on first use (the tables exist only
 * after migrate()) and then reused, since a key is looked up on every request.
 */
export class SqliteAuthRepository implements AuthRepository {
  private statements?: ReturnType<typeof prepare>;

  constructor(private readonly db: Database.Database) {}

  private get sql() {
    this.statements ??= prepare(this.db);
    return this.statements;
  }

  async accountExists(id: string): Promise<boolean> {
    return this.sql.accountExists.get(id) !== undefined;
  }

  async insertKey(key: StoredApiKey, newAccount: boolean): Promise<void> {
    const createdAt = key.createdAt.toISOString();
    this.db.transaction(() => {
      if (newAccount) this.sql.insertAccount.run(key.accountId, createdAt);
      this.sql.insertKey.run({
        id: key.id,
        account_id: key.accountId,
        tier: key.tier,
        environment: key.environment,
        name: key.name,
        secret_hash: key.secretHash,
        created_at: createdAt,
        revoked_at: null,
      } satisfies KeyRow);
    })();
  }

  async findKey(id: string): Promise<StoredApiKey | undefined> {
    const row = this.sql.findKey.get(id) as KeyRow | undefined;
    return row && { ...toInfo(row), secretHash: row.secret_hash };
  }

  async listKeys(): Promise<ApiKeyInfo[]> {
    return (this.sql.listKeys.all() as KeyRow[]).map(toInfo);
  }

  async revokeKey(id: string, at: Date): Promise<RevokeOutcome> {
    if (this.sql.revokeKey.run(at.toISOString(), id).changes === 1) return "revoked";
    return this.sql.keyExists.get(id) ? "already_revoked" : "not_found";
  }
}

function prepare(db: Database.Database) {
  return {
    accountExists: db.prepare("SELECT 1 FROM accounts WHERE id = ?"),
    insertAccount: db.prepare("INSERT INTO accounts (id, created_at) VALUES (?, ?)"),
    insertKey: db.prepare(
      `INSERT INTO api_keys (${infoColumns}, secret_hash)
       VALUES (@id, @account_id, @tier, @environment, @name, @created_at, @revoked_at, @secret_hash)`,
    ),
    findKey: db.prepare(`SELECT ${infoColumns}, secret_hash FROM api_keys WHERE id = ?`),
    listKeys: db.prepare(`SELECT ${infoColumns} FROM api_keys ORDER BY created_at, id`),
    keyExists: db.prepare("SELECT 1 FROM api_keys WHERE id = ?"),
    revokeKey: db.prepare("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL"),
  };
}

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    tier: row.tier,
    environment: row.environment,
    name: row.name,
    createdAt: new Date(row.created_at),
    revokedAt: row.revoked_at ? new Date(row.revoked_at) : null,
  };
}
