-- Each stamp's RFC 6962 leaf hash (SHA-256 of 0x00 and its stamp_json bytes), computed once when
-- the stamp is stored, so sealing a batch reads 32 bytes a stamp instead of its whole document.
-- NULL for stamps stored before this migration: sealing hashes their stamp_json instead.
ALTER TABLE stamps ADD COLUMN leaf_hash BLOB CHECK (leaf_hash IS NULL OR length(leaf_hash) = 32);
