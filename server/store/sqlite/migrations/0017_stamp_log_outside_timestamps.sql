-- The outside TSA's tokens of Sigstore bundles (TSA_URL, docs/sigstore.md): at most one per stamp
-- log entry, asked for when its bundle is first made (or by a later request while the TSA was
-- down) and served with every bundle of the stamp from then on; never replaced, so the bundle
-- keeps it. Each signing certificate's chain is kept once: the trusted root lists every chain that
-- dated a bundle, whatever TSA_URL names today.
CREATE TABLE IF NOT EXISTS outside_tsa_chains (
  signer_sha256 BLOB PRIMARY KEY CHECK (length(signer_sha256) = 32),
  chain_pem TEXT NOT NULL,
  first_used_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS stamp_log_outside_timestamps (
  stamp_id TEXT PRIMARY KEY REFERENCES stamp_log_entries (stamp_id),
  response BLOB NOT NULL,
  gen_time TEXT NOT NULL,
  signer_sha256 BLOB NOT NULL REFERENCES outside_tsa_chains (signer_sha256)
);

CREATE TRIGGER IF NOT EXISTS outside_tsa_chains_no_update BEFORE UPDATE ON outside_tsa_chains
BEGIN
  SELECT RAISE(ABORT, 'an outside TSA chain is kept as first stored');
END;

CREATE TRIGGER IF NOT EXISTS outside_tsa_chains_no_delete BEFORE DELETE ON outside_tsa_chains
BEGIN
  SELECT RAISE(ABORT, 'an outside TSA chain is kept as first stored');
END;

CREATE TRIGGER IF NOT EXISTS stamp_log_outside_timestamps_no_update BEFORE UPDATE ON stamp_log_outside_timestamps
BEGIN
  SELECT RAISE(ABORT, 'a bundle keeps its outside token');
END;

CREATE TRIGGER IF NOT EXISTS stamp_log_outside_timestamps_no_delete BEFORE DELETE ON stamp_log_outside_timestamps
BEGIN
  SELECT RAISE(ABORT, 'a bundle keeps its outside token');
END;
