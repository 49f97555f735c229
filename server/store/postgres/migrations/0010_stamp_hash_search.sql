-- Search by document hash (GET /stamps?hash=, SearchStamps): the stamps of one algorithm and digest,
-- newest first. Stamp ids are ULIDs, so descending id order is descending creation time; with
-- created_at carried in the index a page can be an index-only scan, whatever the number of stamps.
-- It replaces the index on document_hash alone, which no query used and which this one's prefix
-- covers.
CREATE INDEX IF NOT EXISTS stamps_hash_search ON stamps (document_hash, hash_algorithm, id DESC) INCLUDE (created_at);
DROP INDEX IF EXISTS stamps_document_hash;
