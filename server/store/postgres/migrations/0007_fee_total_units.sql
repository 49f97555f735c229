-- Fee totals as whole numbers of 10^-18 units, so the server reads them with BigInt rather than
-- the amount parser (a sum of receipts that each fit that parser could outgrow it, and then the
-- explorer's and dashboard's statistics failed). NUMERIC(1000, 0) is exact and far above any sum
-- of amounts below 10^15. Existing totals (at most 18 decimals) convert exactly.
ALTER TABLE fee_totals ALTER COLUMN total TYPE NUMERIC(1000, 0) USING total * 1000000000000000000;
ALTER TABLE fee_totals RENAME COLUMN total TO units;
ALTER TABLE fee_totals ADD CONSTRAINT fee_totals_units_nonnegative CHECK (units >= 0);
