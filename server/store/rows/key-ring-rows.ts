import type { SigningState, StoredRingKey } from "../../keys/key-ring-repository.js";
import { dateOf, dateOrNull, type Encoding, encodeDateOrNull, type Timestamp } from "./values.js";

/** A row of `key_ring` (migrations 0012), on both engines. */
export interface RingKeyRow {
  kind: StoredRingKey["kind"];
  key_id: string;
  public_key: string;
  origin: string | null;
  sealed_private_key: Buffer | null;
  not_before: Timestamp;
  not_after: Timestamp | null;
  state: StoredRingKey["state"];
  revoked_at: Timestamp | null;
  revocation_reason: string | null;
}

/** The columns in the order of `ringKeyParams`, which the PostgreSQL statements number. */
export const ringKeyColumns =
  "kind, key_id, public_key, origin, sealed_private_key, not_before, not_after, state, revoked_at, revocation_reason";

export const ringKeyOf = (row: RingKeyRow): StoredRingKey => ({
  kind: row.kind,
  keyId: row.key_id,
  publicKey: row.public_key,
  origin: row.origin,
  sealedPrivateKey: row.sealed_private_key,
  notBefore: dateOf(row.not_before),
  notAfter: dateOrNull(row.not_after),
  state: row.state,
  revokedAt: dateOrNull(row.revoked_at),
  revocationReason: row.revocation_reason,
});

export const ringKeyParams = (key: StoredRingKey, encoding: Encoding): RingKeyRow => ({
  kind: key.kind,
  key_id: key.keyId,
  public_key: key.publicKey,
  origin: key.origin,
  sealed_private_key: key.sealedPrivateKey,
  not_before: encoding.date(key.notBefore),
  not_after: encodeDateOrNull(encoding, key.notAfter),
  state: key.state,
  revoked_at: encodeDateOrNull(encoding, key.revokedAt),
  revocation_reason: key.revocationReason,
});

/** `ORDER BY`: the ring oldest key first, kinds apart. */
export const ringOrder = "ORDER BY not_before, kind, key_id";

/** The columns a signer's check reads (`KeyRingRepository.signingStates`): no key material. */
export const signingStateColumns = "kind, key_id, public_key, not_before, not_after, state, revoked_at";

export type SigningStateRow = Pick<
  RingKeyRow,
  "kind" | "key_id" | "public_key" | "not_before" | "not_after" | "state" | "revoked_at"
>;

export const signingStateOf = (row: SigningStateRow): SigningState => ({
  kind: row.kind,
  keyId: row.key_id,
  publicKey: row.public_key,
  notBefore: dateOf(row.not_before),
  notAfter: dateOrNull(row.not_after),
  state: row.state,
  revokedAt: dateOrNull(row.revoked_at),
});
