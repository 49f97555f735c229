-- Batch membership out of the stamp rows (issue #24): a stamp's batch is its stamp_proofs row, and
-- the stamps waiting for a batch are a queue of their ids, so sealing a batch no longer rewrites
-- every stamp row (each ~1.5 KB, written to the WAL a second time) to set batch_id and status. New
-- stamps keep status 'pending' and batch_id NULL in their row; reads derive 'confirmed' from their
-- stamp_proofs row (server/store/rows/stamp-rows.ts). Rows sealed before this migration keep theirs.
CREATE TABLE unsealed_stamps (
  stamp_id TEXT PRIMARY KEY REFERENCES stamps (id)
) WITHOUT ROWID;

INSERT INTO unsealed_stamps (stamp_id) SELECT id FROM stamps WHERE batch_id IS NULL;

-- A row written already sealed (batch_id set, the shape before this migration: a bulk load, a
-- copy) waits for nothing, as the copy above says.
CREATE TRIGGER unsealed_stamps_insert AFTER INSERT ON stamps WHEN new.batch_id IS NULL
BEGIN
  INSERT INTO unsealed_stamps (stamp_id) VALUES (new.id);
END;

-- The queue replaces the partial index of waiting stamps; nothing reads stamps by batch_id any more
-- (a batch's members are found through stamp_proofs), so neither index is kept up at each insert.
DROP INDEX IF EXISTS stamps_unbatched;
DROP INDEX IF EXISTS stamps_batch;
