-- The deployment's key ring (issue #26, docs/operations.md "Keys"): every service, log and TSA key
-- it has signed with, the period it signed in and its state. Private keys are sealed with the
-- at-rest key (AES-256-GCM, associated data `<kind>:<key id>`), so every instance can sign with
-- the active key after a rotation. One active key per kind.
CREATE TABLE IF NOT EXISTS key_ring (
  kind TEXT NOT NULL CHECK (kind IN ('service', 'log', 'tsa')),
  key_id TEXT NOT NULL,
  public_key TEXT NOT NULL,
  origin TEXT,
  sealed_private_key BLOB,
  not_before TEXT NOT NULL,
  not_after TEXT,
  state TEXT NOT NULL CHECK (state IN ('active', 'retired', 'revoked')),
  revoked_at TEXT,
  revocation_reason TEXT,
  PRIMARY KEY (kind, key_id)
);
CREATE UNIQUE INDEX IF NOT EXISTS key_ring_one_active ON key_ring (kind) WHERE state = 'active';

-- Values that tell whether an instance holds the deployment's secrets before it writes anything:
-- `at_rest` is a fixed text sealed with the at-rest key, which a wrong key cannot open.
CREATE TABLE IF NOT EXISTS key_checks (
  name TEXT PRIMARY KEY,
  value BLOB NOT NULL
);
