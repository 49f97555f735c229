import { leafHashOfText } from "../stamps/batch-signing.js";

/**
 * A stamp's leaf in its Merkle batch: the RFC 6962 leaf hash of its stored text, which is already
 * the canonical form the SDK hashes (core/stamp-leaf.ts). The stores compute it once,
 * when the stamp is stored, and sealing reads it back.
 */
export const stampLeafHash = (stampJson: string): Uint8Array => leafHashOfText(stampJson);
