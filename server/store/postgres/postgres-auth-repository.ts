import type pg from "pg";
import type { ApiKeyInfo, AuthRepository, RevokeOutcome, StoredApiKey } from "../../auth/auth-repository.js";
import type { KeyEnvironment } from "../../auth/key-format.js";
import type { KeyTier } from "../../auth/principal.js";
import { transaction } from "./transaction.js";

interface KeyRow {
  id: string;
  account_id: string;
  tier: KeyTier;
  environment: KeyEnvironment;
  name: string | null;
  secret_hash: Buffer;
  created_at: Date;
  revoked_at: Date | null;
}

const infoColumns = "id, account_id, tier, environment, name, created_at, revoked_at";

/** Accounts and API keys in PostgreSQL; the per-request key lookup is a named (prepared) statement. */
export class PostgresAuthRepository implements AuthRepository {
  constructor(private readonly pool: pg.Pool) {}

  async accountExists(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query("SELECT 1 FROM accounts WHERE id = $1", [id]);
    return rowCount === 1;
  }

  async insertKey(key: StoredApiKey, newAccount: boolean): Promise<void> {
    await transaction(this.pool, async (client) => {
      if (newAccount) {
        await client.query("INSERT INTO accounts (id, created_at) VALUES ($1, $2)", [
          key.accountId,
          key.createdAt,
        ]);
      }
      await client.query(
        `INSERT INTO api_keys (${infoColumns}, secret_hash) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)`,
        [key.id, key.accountId, key.tier, key.environment, key.name, key.createdAt, key.secretHash],
      );
    });
  }

  async findKey(id: string): Promise<StoredApiKey | undefined> {
    const { rows } = await this.pool.query<KeyRow>({
      name: "stampd-find-key",
      text: `SELECT ${infoColumns}, secret_hash FROM api_keys WHERE id = $1`,
      values: [id],
    });
    const row = rows[0];
    return row && { ...toInfo(row), secretHash: row.secret_hash };
  }

  async listKeys(): Promise<ApiKeyInfo[]> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT ${infoColumns} FROM api_keys ORDER BY created_at, id`,
    );
    return rows.map(toInfo);
  }

  async revokeKey(id: string, at: Date): Promise<RevokeOutcome> {
    const revoked = await this.pool.query(
      "UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
      [at, id],
    );
    if (revoked.rowCount === 1) return "revoked";
    const exists = await this.pool.query("SELECT 1 FROM api_keys WHERE id = $1", [id]);
    return exists.rowCount === 1 ? "already_revoked" : "not_found";
  }
}

function toInfo(row: KeyRow): ApiKeyInfo {
  return {
    id: row.id,
    accountId: row.account_id,
    tier: row.tier,
    environment: row.environment,
    name: row.name,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
