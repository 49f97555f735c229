import type { ApiKeyInfo, StoredApiKey } from "../../auth/auth-repository.js";
import type { KeyEnvironment } from "../../auth/key-format.js";
import type { KeyTier } from "../../auth/principal.js";
import type { IdempotencyRecord } from "../../idempotency/idempotency-repository.js";
import type { StoredIdentity } from "../../identities/identity-repository.js";
import { dateOf, dateOrNull, type Encoding, type Json, jsonOf, type Timestamp } from "./values.js";

/**
 * Rows of what an account holds besides stamps and vaults, on both engines: its API keys, its
 * signing identities and its Idempotency-Key records. The parameter builders list their columns in
 * the order the PostgreSQL statements number their parameters.
 */

/** A row of `api_keys`; listings read it without `secret_hash`. */
export interface KeyRow {
  id: string;
  account_id: string;
  tier: KeyTier;
  environment: KeyEnvironment;
  name: string | null;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  secret_hash?: Buffer;
}

/** Every column of a key but its hash. */
export const keyInfoColumns = "id, account_id, tier, environment, name, created_at, revoked_at";

export const keyInfoOf = (row: KeyRow): ApiKeyInfo => ({
  id: row.id,
  accountId: row.account_id,
  tier: row.tier,
  environment: row.environment,
  name: row.name,
  createdAt: dateOf(row.created_at),
  revokedAt: dateOrNull(row.revoked_at),
});

export const storedKeyOf = (row: KeyRow): StoredApiKey => ({
  ...keyInfoOf(row),
  secretHash: row.secret_hash!,
});

/** A new key's columns, in the order of `keyInfoColumns` then its hash; not revoked. */
export const keyParams = (key: StoredApiKey, encoding: Encoding) => ({
  id: key.id,
  account_id: key.accountId,
  tier: key.tier,
  environment: key.environment,
  name: key.name,
  created_at: encoding.date(key.createdAt),
  revoked_at: null,
  secret_hash: key.secretHash,
});

/** A row of `identities`. */
export interface IdentityRow {
  id: string;
  public_key: string;
  account_id: string;
  sealed_private_key: Buffer;
  created_at: Timestamp;
}

export const identityOf = (row: IdentityRow): StoredIdentity => ({
  id: row.id,
  publicKey: row.public_key,
  accountId: row.account_id,
  sealedPrivateKey: row.sealed_private_key,
  createdAt: dateOf(row.created_at),
});

export const identityParams = (identity: StoredIdentity, encoding: Encoding): IdentityRow => ({
  id: identity.id,
  public_key: identity.publicKey,
  account_id: identity.accountId,
  sealed_private_key: identity.sealedPrivateKey,
  created_at: encoding.date(identity.createdAt),
});

/** A row of `idempotency_keys`; `status`, `headers` and `body` stay null until the response is stored. */
export interface IdempotencyRow {
  scope: string;
  idempotency_key: string;
  operation: string;
  fingerprint: string;
  status: number | null;
  headers: Json<Record<string, string>> | null;
  body: Buffer | null;
  locked_until: Timestamp;
  expires_at: Timestamp;
}

export const idempotencyRecordOf = (row: IdempotencyRow): IdempotencyRecord => ({
  scope: row.scope,
  key: row.idempotency_key,
  operation: row.operation,
  fingerprint: row.fingerprint,
  response:
    row.status === null
      ? null
      : {
          status: row.status,
          headers: row.headers === null ? {} : jsonOf(row.headers),
          body: row.body ?? Buffer.alloc(0),
        },
  lockedUntil: dateOf(row.locked_until),
  expiresAt: dateOf(row.expires_at),
});

/** The record's id first (each statement selects the record by it), then a reservation's columns. */
export const reservationParams = (record: IdempotencyRecord, encoding: Encoding) => ({
  scope: record.scope,
  key: record.key,
  operation: record.operation,
  fingerprint: record.fingerprint,
  locked_until: encoding.date(record.lockedUntil),
  expires_at: encoding.date(record.expiresAt),
});
