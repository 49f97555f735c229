-- Fee totals as whole numbers of 10^-18 units (digits, read with BigInt) instead of decimal text
-- read by the amount parser: a sum of receipts that each fit that parser could outgrow it, and then
-- every later heartbeat failed reading it. Existing totals (at most 18 decimals) convert exactly.
CREATE TABLE fee_totals_units (
  currency TEXT PRIMARY KEY,
  units TEXT NOT NULL CHECK (length(units) > 0 AND units NOT GLOB '*[^0-9]*')
);

INSERT INTO fee_totals_units (currency, units)
SELECT currency, coalesce(nullif(ltrim(whole || substr(fraction || '000000000000000000', 1, 18), '0'), ''), '0')
FROM (
  SELECT currency,
    CASE WHEN instr(total, '.') = 0 THEN total ELSE substr(total, 1, instr(total, '.') - 1) END AS whole,
    CASE WHEN instr(total, '.') = 0 THEN '' ELSE substr(total, instr(total, '.') + 1) END AS fraction
  FROM fee_totals
);

DROP TABLE fee_totals;
ALTER TABLE fee_totals_units RENAME TO fee_totals;
