import { jcs } from "./jcs.js";

const encoder = new TextEncoder();

/**
 * The Merkle leaf data of a stamp in its batch: the stamp document (`stamp_json`, signatures
 * included) in RFC 8785 canonical form, as UTF-8. Its leaf hash is SHA-256(0x00 ‖ these bytes).
 * Canonical form makes the leaf independent of how the document was re-serialized.
 *
 * @example
 * const leaf = leafHash(stampLeafData(stamp.stamp_json)); // the proof's leaf_hash
 */
export function stampLeafData(stampJson: object): Uint8Array {
  return encoder.encode(jcs(stampJson));
}
