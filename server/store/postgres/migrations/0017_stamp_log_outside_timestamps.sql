-- The outside TSA's tokens of Sigstore bundles (TSA_URL, docs/sigstore.md): at most one per stamp
-- log entry, asked for when its bundle is first made (or by a later request while the TSA was
-- down) and served with every bundle of the stamp from then on; never replaced, so the bundle
-- keeps it. Each signing certificate's chain is kept once: the trusted root lists every chain that
-- dated a bundle, whatever TSA_URL names today.
CREATE TABLE IF NOT EXISTS outside_tsa_chains (
  signer_sha256 BYTEA PRIMARY KEY CHECK (length(signer_sha256) = 32),
  chain_pem TEXT NOT NULL,
  first_used_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS stamp_log_outside_timestamps (
  stamp_id TEXT PRIMARY KEY REFERENCES stamp_log_entries (stamp_id),
  response BYTEA NOT NULL,
  gen_time TIMESTAMPTZ NOT NULL,
  signer_sha256 BYTEA NOT NULL REFERENCES outside_tsa_chains (signer_sha256)
);

DROP TRIGGER IF EXISTS outside_tsa_chains_kept ON outside_tsa_chains;
CREATE TRIGGER outside_tsa_chains_kept BEFORE UPDATE OR DELETE ON outside_tsa_chains
  FOR EACH ROW EXECUTE FUNCTION log_entries_append_only();
DROP TRIGGER IF EXISTS outside_tsa_chains_no_truncate ON outside_tsa_chains;
CREATE TRIGGER outside_tsa_chains_no_truncate BEFORE TRUNCATE ON outside_tsa_chains
  FOR EACH STATEMENT EXECUTE FUNCTION log_entries_append_only();
DROP TRIGGER IF EXISTS stamp_log_outside_timestamps_kept ON stamp_log_outside_timestamps;
CREATE TRIGGER stamp_log_outside_timestamps_kept BEFORE UPDATE OR DELETE ON stamp_log_outside_timestamps
  FOR EACH ROW EXECUTE FUNCTION log_entries_append_only();
DROP TRIGGER IF EXISTS stamp_log_outside_timestamps_no_truncate ON stamp_log_outside_timestamps;
CREATE TRIGGER stamp_log_outside_timestamps_no_truncate BEFORE TRUNCATE ON stamp_log_outside_timestamps
  FOR EACH STATEMENT EXECUTE FUNCTION log_entries_append_only();
