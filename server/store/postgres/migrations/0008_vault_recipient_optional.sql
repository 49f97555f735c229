-- recipient_public_key becomes optional: NULL marks an owner-bound vault, whose key only the
-- owning account may retrieve (POST /vault/{id}/retrieve).
ALTER TABLE vaults ALTER COLUMN recipient_public_key DROP NOT NULL;
