-- Accounts and their API keys. A key is never stored: only the SHA-256 of the whole key text.
CREATE TABLE IF NOT EXISTS accounts (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS api_keys (
  -- key_ and the first 12 characters of the key's random part: public, the lookup index.
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts (id),
  tier TEXT NOT NULL CHECK (tier IN ('authenticated', 'premium', 'internal')),
  environment TEXT NOT NULL CHECK (environment IN ('live', 'test')),
  name TEXT,
  secret_hash BLOB NOT NULL CHECK (length(secret_hash) = 32),
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE INDEX IF NOT EXISTS api_keys_account ON api_keys (account_id);
