import type { ClaimedStamp } from "../proofs/proof-repository.js";
import { stampLeafHash } from "../proofs/stamp-leaf-hash.js";

/** What a seal's claim returns of a stamp (both engines): its document only when it was stored without its leaf hash. */
export interface ClaimedRow {
  id: string;
  account_id: string | null;
  leaf_hash: Buffer | null;
  stamp_json: string | null;
  opening: string;
}

export const claimedStamp = (row: ClaimedRow): ClaimedStamp => ({
  id: row.id,
  accountId: row.account_id,
  leafHash: row.leaf_hash ?? stampLeafHash(row.stamp_json!),
  opening: row.opening,
});
