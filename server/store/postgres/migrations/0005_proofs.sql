-- Proofs and anchoring (docs/design.md "Proofs and anchoring"): Merkle batches of stamps, the
-- transparency log over batch roots with its signed checkpoints, and each batch's anchor records.
-- Indexes and sizes are INTEGER (pg decodes them as numbers): 2^31 batches at one a second last
-- 68 years.

CREATE TABLE IF NOT EXISTS batches (
  id TEXT PRIMARY KEY,
  sealed_at TIMESTAMPTZ NOT NULL,
  tree_size INTEGER NOT NULL CHECK (tree_size > 0),
  root BYTEA NOT NULL CHECK (length(root) = 32),
  -- Ed25519 over the 32 root bytes, hex (gRPC Proof.prime_signature).
  signature TEXT NOT NULL,
  public_key TEXT NOT NULL,
  -- The root's entry index in the transparency log; NULL until the log sequences it.
  log_index INTEGER UNIQUE
);

CREATE INDEX IF NOT EXISTS batches_unsequenced ON batches (sealed_at, id) WHERE log_index IS NULL;

-- The claim: a stamp belongs to at most one batch, set in the UPDATE that claims it. Deferred:
-- the claim comes first and the batch row later in the same transaction.
ALTER TABLE stamps ADD COLUMN IF NOT EXISTS batch_id TEXT REFERENCES batches (id) DEFERRABLE INITIALLY DEFERRED;

CREATE INDEX IF NOT EXISTS stamps_unbatched ON stamps (id) WHERE batch_id IS NULL;
CREATE INDEX IF NOT EXISTS stamps_batch ON stamps (batch_id);

CREATE TABLE IF NOT EXISTS stamp_proofs (
  stamp_id TEXT PRIMARY KEY REFERENCES stamps (id),
  batch_id TEXT NOT NULL REFERENCES batches (id),
  leaf_index INTEGER NOT NULL CHECK (leaf_index >= 0),
  -- The RFC 6962 audit path, the sibling hashes concatenated (32 bytes each), leaf level first.
  audit_path BYTEA NOT NULL CHECK (length(audit_path) % 32 = 0),
  UNIQUE (batch_id, leaf_index)
);

-- Append-only: entries are only inserted, at the next index (appenders hold an EXCLUSIVE lock on
-- the table, see postgres-log-repository.ts). The trigger refuses any UPDATE, DELETE or TRUNCATE.
CREATE TABLE IF NOT EXISTS log_entries (
  idx INTEGER PRIMARY KEY CHECK (idx >= 0),
  leaf_hash BYTEA NOT NULL CHECK (length(leaf_hash) = 32),
  batch_id TEXT NOT NULL UNIQUE REFERENCES batches (id),
  appended_at TIMESTAMPTZ NOT NULL
);

CREATE OR REPLACE FUNCTION log_entries_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'log_entries is append-only: % refused', TG_OP;
END;
$$;
DROP TRIGGER IF EXISTS log_entries_append_only ON log_entries;
CREATE TRIGGER log_entries_append_only BEFORE UPDATE OR DELETE ON log_entries
  FOR EACH ROW EXECUTE FUNCTION log_entries_append_only();
DROP TRIGGER IF EXISTS log_entries_no_truncate ON log_entries;
CREATE TRIGGER log_entries_no_truncate BEFORE TRUNCATE ON log_entries
  FOR EACH STATEMENT EXECUTE FUNCTION log_entries_append_only();

CREATE TABLE IF NOT EXISTS log_checkpoints (
  tree_size INTEGER PRIMARY KEY CHECK (tree_size >= 0),
  root BYTEA NOT NULL CHECK (length(root) = 32),
  -- The C2SP signed note, exactly as served.
  note TEXT NOT NULL,
  signed_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS batch_anchors (
  batch_id TEXT NOT NULL REFERENCES batches (id),
  type TEXT NOT NULL CHECK (type IN ('log', 'rfc3161', 'bitcoin', 'ethereum')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'failed')),
  reference TEXT,
  confirmed_at TIMESTAMPTZ,
  reason TEXT,
  -- What the adapter keeps between attempts and as evidence: the RFC 3161 token, the
  -- OpenTimestamps receipts, the Ethereum transaction hash.
  evidence BYTEA,
  attempts INTEGER NOT NULL DEFAULT 0,
  -- When the anchor may be worked on next; a worker claims it by moving this forward.
  next_attempt_at TIMESTAMPTZ NOT NULL,
  PRIMARY KEY (batch_id, type),
  CHECK ((status = 'confirmed') = (reference IS NOT NULL AND confirmed_at IS NOT NULL))
);

CREATE INDEX IF NOT EXISTS batch_anchors_due ON batch_anchors (next_attempt_at) WHERE status = 'pending';
