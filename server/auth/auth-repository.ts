import type { KeyEnvironment } from "./key-format.js";
import type { KeyTier } from "./principal.js";

/** An API key as listings show it: everything except its hash. */
export interface ApiKeyInfo {
  id: string;
  accountId: string;
  tier: KeyTier;
  environment: KeyEnvironment;
  name: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** An API key row as verification reads it. */
export interface StoredApiKey extends ApiKeyInfo {
  /** SHA-256 of the whole key; the key itself is never stored. */
  secretHash: Buffer;
}

export type RevokeOutcome = "revoked" | "already_revoked" | "not_found";

/** Accounts and their API keys (`store.auth`). */
export interface AuthRepository {
  accountExists(id: string): Promise<boolean>;
  /** Stores the key; with `newAccount` creates its account in the same transaction. */
  insertKey(key: StoredApiKey, newAccount: boolean): Promise<void>;
  findKey(id: string): Promise<StoredApiKey | undefined>;
  /** Every key, oldest first. */
  listKeys(): Promise<ApiKeyInfo[]>;
  revokeKey(id: string, at: Date): Promise<RevokeOutcome>;
}
