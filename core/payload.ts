import { jcs } from "./jcs.js";

const encoder = new TextEncoder();

/**
 * The bytes both signatures cover: the stamp document without its `signatures` member,
 * canonicalized with RFC 8785 (JCS), as UTF-8. Canonical form makes the bytes independent of key
 * order and whitespace, so a document re-serialized by any JSON library still verifies.
 */
export function signedPayload(document: object): Uint8Array {
  const { signatures: _signatures, ...signed } = document as Record<string, unknown>;
  return encoder.encode(jcs(signed));
}
