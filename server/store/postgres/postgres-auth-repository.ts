import type pg from "pg";
import type { ApiKeyInfo, AuthRepository, RevokeOutcome, StoredApiKey } from "../../auth/auth-repository.js";
import { type KeyRow, keyInfoColumns, keyInfoOf, keyParams, storedKeyOf } from "../rows/account-rows.js";
import { postgresEncoding } from "../rows/values.js";
import { transaction } from "./transaction.js";

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
        `INSERT INTO api_keys (${keyInfoColumns}, secret_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        Object.values(keyParams(key, postgresEncoding)),
      );
    });
  }

  async findKey(id: string): Promise<StoredApiKey | undefined> {
    const { rows } = await this.pool.query<KeyRow>({
      name: "stampd-find-key",
      text: `SELECT ${keyInfoColumns}, secret_hash FROM api_keys WHERE id = $1`,
      values: [id],
    });
    const row = rows[0];
    return row && storedKeyOf(row);
  }

  async listKeys(): Promise<ApiKeyInfo[]> {
    const { rows } = await this.pool.query<KeyRow>(
      `SELECT ${keyInfoColumns} FROM api_keys ORDER BY created_at, id`,
    );
    return rows.map(keyInfoOf);
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
