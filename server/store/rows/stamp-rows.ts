import { jcs } from "../../../core/jcs.js";
import { stampLeafHash } from "../../proofs/stamp-leaf-hash.js";
import type { HashMatch, StampStatus, StoredStamp } from "../../stamps/stamp-repository.js";
import { bufferOf, isoOf, type Timestamp } from "./values.js";

/** The columns an insert writes, in its order (both engines write one statement for many rows). */
export const stampColumns = [
  "id",
  "account_id",
  "identity_id",
  "created_at",
  "hash_algorithm",
  "document_hash",
  "status",
  "stamp_json",
  "fingerprint_json",
  "leaf_hash",
  "content_sha256",
] as const;

export type StampParams = Record<(typeof stampColumns)[number], string | Buffer | null>;

/**
 * A new stamp's row. `created_at` is the document's own text: SQLite keeps it as is, PostgreSQL
 * casts it to timestamptz. The leaf hash is computed here, once, for sealing to read back.
 */
export function stampParams(stamp: StoredStamp): StampParams {
  const { document } = stamp;
  const json = stamp.json ?? jcs(document);
  return {
    id: stamp.id,
    account_id: stamp.accountId,
    identity_id: stamp.identityId,
    created_at: document.created_at,
    hash_algorithm: document.document.algorithm,
    document_hash: document.document.hash,
    status: stamp.status,
    stamp_json: json,
    fingerprint_json: stamp.fingerprint === null ? null : JSON.stringify(stamp.fingerprint),
    leaf_hash: bufferOf(stampLeafHash(json)),
    content_sha256: stamp.contentSha256,
  };
}

/** A stored stamp as `get` reads it. */
export interface StampRow {
  id: string;
  account_id: string | null;
  identity_id: string | null;
  status: StampStatus;
  stamp_json: string;
  fingerprint_json: string | null;
  content_sha256: string | null;
}

/**
 * Every column `StampRow` names, for the SELECTs that read one from `stamps`. Sealing writes a
 * stamp's stamp_proofs row and leaves its own row as stored (migration 0013), so a row that says
 * 'pending' is confirmed once that proof row exists.
 */
export const stampRowColumns = `id, account_id, identity_id, stamp_json, fingerprint_json, content_sha256,
  CASE WHEN status = 'pending' AND EXISTS (SELECT 1 FROM stamp_proofs WHERE stamp_proofs.stamp_id = stamps.id)
    THEN 'confirmed' ELSE status END AS status`;

export const storedStampOf = (row: StampRow): StoredStamp => ({
  id: row.id,
  accountId: row.account_id,
  identityId: row.identity_id,
  status: row.status,
  document: JSON.parse(row.stamp_json),
  json: row.stamp_json,
  fingerprint: row.fingerprint_json === null ? null : JSON.parse(row.fingerprint_json),
  contentSha256: row.content_sha256,
});

/** A search hit: its `created_at` in the RFC 3339 text the document carries. */
export const hashMatchOf = (row: { id: string; created_at: Timestamp }): HashMatch => ({
  id: row.id,
  createdAt: isoOf(row.created_at),
});
