-- Signing identities and stamps. Document content is never stored: only hashes and the signed
-- stamp document.
CREATE TABLE IF NOT EXISTS identities (
  -- The first 16 hex characters of the public key (seed 2.6); unique, a colliding key is regenerated.
  id TEXT PRIMARY KEY CHECK (length(id) = 16),
  public_key TEXT NOT NULL UNIQUE,
  account_id TEXT NOT NULL,
  -- PKCS#8 private key sealed with AES-256-GCM under the at-rest key (server/keys/at-rest-cipher.ts).
  sealed_private_key BYTEA NOT NULL,
  created_at TIMESTAMPTZ NOT NULL
);

CREATE INDEX IF NOT EXISTS identities_account ON identities (account_id);

CREATE TABLE IF NOT EXISTS stamps (
  id TEXT PRIMARY KEY,
  account_id TEXT,
  identity_id TEXT REFERENCES identities (id),
  created_at TIMESTAMPTZ NOT NULL,
  hash_algorithm TEXT NOT NULL CHECK (hash_algorithm IN ('sha3-256', 'sha256', 'blake3')),
  document_hash TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'anchored')),
  -- The signed stampd.stamp/v1 document as issued, in canonical (RFC 8785) form. TEXT, not JSONB:
  -- JSONB would reorder keys and normalise numbers, and the signature covers these exact bytes.
  stamp_json TEXT NOT NULL,
  -- The full fingerprint document for stamps made with generate_fp, else NULL.
  fingerprint_json TEXT
);

CREATE INDEX IF NOT EXISTS stamps_identity ON stamps (identity_id);
CREATE INDEX IF NOT EXISTS stamps_account_created ON stamps (account_id, created_at);
CREATE INDEX IF NOT EXISTS stamps_document_hash ON stamps (document_hash);
