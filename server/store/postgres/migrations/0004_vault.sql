-- The vault (dead man's switch key escrow), its fee receipts, retrieval proofs, heartbeat groups,
-- and the generic Idempotency-Key records. account_id has no foreign key: vaults are created by
-- the domain for whatever account the transport authenticated.

CREATE TABLE IF NOT EXISTS vault_groups (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  name TEXT NOT NULL,
  interval_seconds INTEGER NOT NULL CHECK (interval_seconds > 0),
  created_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS vaults (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'released', 'expired', 'burned')),
  -- NULL once burned: the key is erased, not flagged.
  encrypted_key TEXT CHECK ((encrypted_key IS NULL) = (state = 'burned')),
  recipient_public_key TEXT NOT NULL,
  heartbeat_deadline INTEGER NOT NULL CHECK (heartbeat_deadline > 0),
  allow_manual_release BOOLEAN NOT NULL,
  -- JSON, not JSONB: the owner's metadata comes back with its keys in the order given.
  content_uris JSON NOT NULL,
  metadata JSON NOT NULL,
  created_at TIMESTAMPTZ NOT NULL,
  deadline TIMESTAMPTZ NOT NULL,
  last_heartbeat TIMESTAMPTZ,
  heartbeat_count INTEGER NOT NULL DEFAULT 0,
  group_id TEXT REFERENCES vault_groups (id),
  -- The deadline a warning was sent for: one warning per deadline.
  warned_deadline TIMESTAMPTZ,
  released_at TIMESTAMPTZ,
  release_reason TEXT,
  retrieved_at TIMESTAMPTZ,
  burned_at TIMESTAMPTZ,
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
  used_at TIMESTAMPTZ NOT NULL,
  used_for TEXT NOT NULL
);

-- Running exact totals of consumed receipts per currency. NUMERIC is exact, and adding in the
-- upsert itself (total = total + amount) keeps concurrent instances from losing an update.
CREATE TABLE IF NOT EXISTS fee_totals (
  currency TEXT PRIMARY KEY,
  total NUMERIC NOT NULL
);

-- Used proof_of_identity texts (by SHA-256), kept until they would be stale anyway.
CREATE TABLE IF NOT EXISTS vault_used_proofs (
  digest TEXT PRIMARY KEY,
  expires_at TIMESTAMPTZ NOT NULL
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
  headers JSON,
  body BYTEA,
  locked_until TIMESTAMPTZ NOT NULL,
  expires_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (scope, idempotency_key, operation)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
