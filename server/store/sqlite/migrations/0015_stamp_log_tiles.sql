-- The stamp log as C2SP tiles (docs/sigstore.md, docs/log-tiles.md), like log_tiles.
CREATE TABLE IF NOT EXISTS stamp_log_tiles (
  path TEXT PRIMARY KEY,
  data BLOB NOT NULL
);
