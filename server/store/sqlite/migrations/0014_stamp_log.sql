-- The stamp log (issue #37, docs/sigstore.md): one entry per stamp whose Sigstore bundle was asked
-- for, the entry's bytes a Rekor v2 `hashedrekord` 0.0.2 body (RFC 8785), with its signed
-- checkpoints. Append-only like log_entries.
CREATE TABLE IF NOT EXISTS stamp_log_entries (
  idx INTEGER PRIMARY KEY CHECK (idx >= 0),
  stamp_id TEXT NOT NULL UNIQUE REFERENCES stamps (id),
  body BLOB NOT NULL,
  leaf_hash BLOB NOT NULL CHECK (length(leaf_hash) = 32),
  appended_at TEXT NOT NULL
);

CREATE TRIGGER IF NOT EXISTS stamp_log_entries_no_update BEFORE UPDATE ON stamp_log_entries
BEGIN
  SELECT RAISE(ABORT, 'the stamp log is append-only');
END;

CREATE TRIGGER IF NOT EXISTS stamp_log_entries_no_delete BEFORE DELETE ON stamp_log_entries
BEGIN
  SELECT RAISE(ABORT, 'the stamp log is append-only');
END;

CREATE TABLE IF NOT EXISTS stamp_log_checkpoints (
  tree_size INTEGER PRIMARY KEY CHECK (tree_size >= 0),
  root BLOB NOT NULL CHECK (length(root) = 32),
  note TEXT NOT NULL,
  signed_at TEXT NOT NULL
);
