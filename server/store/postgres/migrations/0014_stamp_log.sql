-- The stamp log (issue #37, docs/sigstore.md): one entry per stamp whose Sigstore bundle was asked
-- for, the entry's bytes a Rekor v2 `hashedrekord` 0.0.2 body (RFC 8785), with its signed
-- checkpoints. Append-only like log_entries (appenders hold an EXCLUSIVE lock on the table, see
-- postgres-stamp-log-repository.ts).
CREATE TABLE IF NOT EXISTS stamp_log_entries (
  idx INTEGER PRIMARY KEY CHECK (idx >= 0),
  stamp_id TEXT NOT NULL UNIQUE REFERENCES stamps (id),
  body BYTEA NOT NULL,
  leaf_hash BYTEA NOT NULL CHECK (length(leaf_hash) = 32),
  appended_at TIMESTAMPTZ NOT NULL
);

DROP TRIGGER IF EXISTS stamp_log_entries_append_only ON stamp_log_entries;
CREATE TRIGGER stamp_log_entries_append_only BEFORE UPDATE OR DELETE ON stamp_log_entries
  FOR EACH ROW EXECUTE FUNCTION log_entries_append_only();
DROP TRIGGER IF EXISTS stamp_log_entries_no_truncate ON stamp_log_entries;
CREATE TRIGGER stamp_log_entries_no_truncate BEFORE TRUNCATE ON stamp_log_entries
  FOR EACH STATEMENT EXECUTE FUNCTION log_entries_append_only();

CREATE TABLE IF NOT EXISTS stamp_log_checkpoints (
  tree_size INTEGER PRIMARY KEY CHECK (tree_size >= 0),
  root BYTEA NOT NULL CHECK (length(root) = 32),
  note TEXT NOT NULL,
  signed_at TIMESTAMPTZ NOT NULL
);
