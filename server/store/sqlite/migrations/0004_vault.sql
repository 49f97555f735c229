-- The vault (dead man's switch key escrow), its fee receipts, retrieval proofs, heartbeat groups,
-- and the generic Idempotency-Key records. Times are ISO 8601 UTC text (toISOString), which sorts
-- and compares like the instants it names. account_id has no foreign key: vaults are created by
-- the domain for whatever account the transport authenticated.

CREATE TABLE IF NOT EXISTS vault_groups (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  interval_seconds INTEGER NOT NULL CHECK (interval_seconds > 0),
  created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS vaults (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'released', 'expired', 'burned')),
  -- NULL once burned: the key is erased, not flagged (secure_delete zeroes the freed bytes).
  encrypted_key TEXT CHECK ((encrypted_key IS NULL) = (state = 'burned')),
  recipient_public_key TEXT NOT NULL,
  heartbeat_deadline INTEGER NOT NULL CHECK (heartbeat_deadline > 0),
  allow_manual_release INTEGER NOT NULL CHECK (allow_manual_release IN (0, 1)),
  content_uris TEXT NOT NULL,
  metadata TEXT NOT NULL,
  created_at TEXT NOT NULL,
  deadline TEXT NOT NULL,
  last_heartbeat TEXT,
  heartbeat_count INTEGER NOT NULL DEFAULT 0,
  group_id TEXT REFERENCES vault_groups (id),
  -- The deadline a warning was sent for: one warning per deadline.
  warned_deadline TEXT,
  released_at TEXT,
  release_reason TEXT,
  retrieved_at TEXT,
  burned_at TEXT,
  burn_reason TEXT CHECK (burn_reason IN ('owner_request', 'retention_expired')),
  burn_note TEXT,
  version INTEGER NOT NULL DEFAULT 0
);

CREATE INDEX IF NOT EXISTS vaults_account_newest ON vaults (account_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS vaults_newest ON vaults (created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS vaults_state_deadline ON vaults (state, deadline);
CREATE INDEX IF NOT EXISTS vaults_unretrieved ON vaults (state, released_at) WHERE retrieved_at IS NULL;

-- Consumed fee receipts: the primary key makes each receipt single-use.
CREATE TABLE IF NOT EXISTS fee_receipts (
  id TEXT PRIMARY KEY,
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  recipient TEXT NOT NULL,
  used_at TEXT NOT NULL,
  used_for TEXT NOT NULL
);

-- Running exact totals of consumed receipts per currency (decimal text), kept in the same
-- transaction as fee_receipts so the explorer reads one row instead of summing every receipt.
CREATE TABLE IF NOT EXISTS fee_totals (
  currency TEXT PRIMARY KEY,
  total TEXT NOT NULL
);

-- Used proof_of_identity texts (by SHA-256), kept until they would be stale anyway.
CREATE TABLE IF NOT EXISTS vault_used_proofs (
  digest TEXT PRIMARY KEY,
  expires_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS vault_used_proofs_expiry ON vault_used_proofs (expires_at);

-- Idempotency-Key records, scoped to the client and the operation (server/idempotency/).
CREATE TABLE IF NOT EXISTS idempotency_keys (
  scope TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  operation TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  -- NULL while the first request runs; then the response to replay.
  status INTEGER,
  headers TEXT,
  body BLOB,
  locked_until TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  PRIMARY KEY (scope, idempotency_key, operation)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
