-- An upload's SHA-256, computed in the same read as the stamp's own algorithm (docs/sigstore.md):
-- its Sigstore bundle carries SHA2_256, which every Sigstore client accepts, and a search by a
-- SHA-256 finds the upload. Null for a stamp of a hash (its own algorithm is all there is) and for
-- every stamp stored before this migration. Not in stamp_json: the signed document is unchanged.
-- A nullable column without a default is added without rewriting the table.
ALTER TABLE stamps ADD COLUMN IF NOT EXISTS content_sha256 TEXT;
-- Search by SHA-256 (GET /stamps?hash=sha256:…) reads it as stamps_hash_search reads document_hash.
-- Partial: hash-only stamps (bulk stamping's) leave it null and never touch it.
CREATE INDEX IF NOT EXISTS stamps_content_sha256_search ON stamps (content_sha256, id DESC) INCLUDE (created_at)
  WHERE content_sha256 IS NOT NULL;
