-- recipient_public_key becomes optional: NULL marks an owner-bound vault, whose key only the
-- owning account may retrieve (POST /vault/{id}/retrieve). SQLite cannot drop a NOT NULL
-- constraint in place, so the table is rebuilt as its documentation describes (no table refers
-- to vaults, so dropping the old one checks no foreign key); columns, checks and indexes are
-- those of 0004 otherwise.
CREATE TABLE vaults_0008 (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('active', 'released', 'expired', 'burned')),
  -- NULL once burned: the key is erased, not flagged (secure_delete zeroes the freed bytes).
  encrypted_key TEXT CHECK ((encrypted_key IS NULL) = (state = 'burned')),
  -- NULL: owner-bound (retrieval by the owner's account with a single-use token).
  recipient_public_key TEXT,
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

INSERT INTO vaults_0008 SELECT id, account_id, state, encrypted_key, recipient_public_key,
  heartbeat_deadline, allow_manual_release, content_uris, metadata, created_at, deadline,
  last_heartbeat, heartbeat_count, group_id, warned_deadline, released_at, release_reason,
  retrieved_at, burned_at, burn_reason, burn_note, version
FROM vaults;

DROP TABLE vaults;
ALTER TABLE vaults_0008 RENAME TO vaults;

CREATE INDEX vaults_account_newest ON vaults (account_id, created_at DESC, id DESC);
CREATE INDEX vaults_newest ON vaults (created_at DESC, id DESC);
CREATE INDEX vaults_state_deadline ON vaults (state, deadline);
CREATE INDEX vaults_unretrieved ON vaults (state, released_at) WHERE retrieved_at IS NULL;
