-- The number of stored stamps, kept by triggers in the transaction of every insert (single rows,
-- grouped commits, batch stamping alike), so the dashboard reads one row instead of counting the
-- stamps table. Initialised from the rows already stored.
CREATE TABLE stamp_count (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  total INTEGER NOT NULL CHECK (total >= 0)
);
INSERT INTO stamp_count (id, total) SELECT 1, count(*) FROM stamps;
CREATE TRIGGER stamp_count_insert AFTER INSERT ON stamps
BEGIN
  UPDATE stamp_count SET total = total + 1 WHERE id = 1;
END;
-- Stamps are never deleted by the service; an operator's DELETE keeps the count true all the same.
CREATE TRIGGER stamp_count_delete AFTER DELETE ON stamps
BEGIN
  UPDATE stamp_count SET total = total - 1 WHERE id = 1;
END;
