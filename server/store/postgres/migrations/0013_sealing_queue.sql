-- Batch membership out of the stamp rows (issue #24): a stamp's batch is its stamp_proofs row, and
-- the stamps waiting for a batch are a queue of their ids, so sealing a batch no longer rewrites
-- every stamp row (a new row version of each ~1.5 KB document) to set batch_id and status. New
-- stamps keep status 'pending' and batch_id NULL in their row; reads derive 'confirmed' from their
-- stamp_proofs row (server/store/rows/stamp-rows.ts). Rows sealed before this migration keep theirs.
CREATE TABLE unsealed_stamps (
  stamp_id TEXT PRIMARY KEY REFERENCES stamps (id)
);

CREATE FUNCTION unsealed_stamps_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- A row written already sealed (batch_id set, the shape before this migration) waits for nothing.
  INSERT INTO unsealed_stamps (stamp_id) SELECT id FROM inserted WHERE batch_id IS NULL;
  RETURN NULL;
END $$;

-- The trigger first: creating it locks the stamps table against inserts until this migration
-- commits, so no stamp of an instance still running is missed between the copy and the trigger.
CREATE TRIGGER unsealed_stamps_insert AFTER INSERT ON stamps REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION unsealed_stamps_add();
INSERT INTO unsealed_stamps (stamp_id) SELECT id FROM stamps WHERE batch_id IS NULL;

-- The queue replaces the partial index of waiting stamps; nothing reads stamps by batch_id any more
-- (a batch's members are found through stamp_proofs), so neither index is kept up at each insert.
DROP INDEX IF EXISTS stamps_unbatched;
DROP INDEX IF EXISTS stamps_batch;
