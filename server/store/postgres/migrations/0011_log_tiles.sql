-- The transparency log as C2SP tiles (docs/log-tiles.md): each file of the tiled log by its path
-- below the prefix (`tile/0/x001/067`, `tile/entries/067.p/12`). Written once per growth of the
-- log; partial tiles are deleted once their full tile is written. COLLATE "C": prefix deletes
-- (LIKE 'tile/0/067.p/%') use the primary key's index whatever the database's collation.
CREATE TABLE IF NOT EXISTS log_tiles (
  path TEXT COLLATE "C" PRIMARY KEY,
  data BYTEA NOT NULL
);
