-- The number of stored stamps, kept by statement triggers in the transaction of every insert
-- (single rows, grouped commits, batch stamping alike: one UPDATE per statement, however many rows
-- it wrote), so the dashboard reads 16 rows instead of counting the stamps table. The count is
-- spread over 16 slots, one picked by the connection's backend, so that instances inserting at
-- the same time rarely wait for each other's lock on one counter row; the total is their sum.
CREATE TABLE stamp_count (
  slot SMALLINT PRIMARY KEY CHECK (slot BETWEEN 0 AND 15),
  total BIGINT NOT NULL
);
INSERT INTO stamp_count (slot, total) SELECT slot, 0 FROM generate_series(0, 15) AS slot;

CREATE FUNCTION stamp_count_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE stamp_count SET total = total + (SELECT count(*) FROM inserted) WHERE slot = pg_backend_pid() % 16;
  RETURN NULL;
END $$;
CREATE FUNCTION stamp_count_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE stamp_count SET total = total - (SELECT count(*) FROM deleted) WHERE slot = pg_backend_pid() % 16;
  RETURN NULL;
END $$;

-- The triggers first: creating one locks the stamps table against inserts until this migration
-- commits, so no stamp of an instance still running is missed between the count and the trigger.
CREATE TRIGGER stamp_count_insert AFTER INSERT ON stamps REFERENCING NEW TABLE AS inserted
  FOR EACH STATEMENT EXECUTE FUNCTION stamp_count_add();
-- Stamps are never deleted by the service; an operator's DELETE keeps the count true all the same.
CREATE TRIGGER stamp_count_delete AFTER DELETE ON stamps REFERENCING OLD TABLE AS deleted
  FOR EACH STATEMENT EXECUTE FUNCTION stamp_count_remove();
UPDATE stamp_count SET total = (SELECT count(*) FROM stamps) WHERE slot = 0;
