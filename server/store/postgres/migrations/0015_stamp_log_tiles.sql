-- The stamp log as C2SP tiles (docs/sigstore.md, docs/log-tiles.md), like log_tiles; COLLATE "C"
-- for the same prefix deletes.
CREATE TABLE IF NOT EXISTS stamp_log_tiles (
  path TEXT COLLATE "C" PRIMARY KEY,
  data BYTEA NOT NULL
);
