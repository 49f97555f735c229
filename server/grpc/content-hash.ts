import { invalid } from "../errors.js";
import { type ContentHash, hashAlgorithms, isHashAlgorithm } from "../hashing/algorithms.js";
import { quoted } from "./quoted.js";

// Every supported algorithm has a 256-bit digest.
const DIGEST_HEX_DIGITS = 64;
const expected = `expected ${hashAlgorithms.slice(0, -1).join(", ")} or ${hashAlgorithms.at(-1)}`;

/**
 * Parses a content_hash `<algorithm>:<hex digest>` as stamp.proto defines it: the algorithm lower
 * case and exact, the hex digits in either case (returned lower case). Each way of being malformed
 * has its own INVALID_ARGUMENT message naming the field and the problem.
 */
export function parseContentHash(text: string, field = "content_hash"): ContentHash {
  if (text === "") throw invalid(`${field}: required, as <algorithm>:<hex digest>`);
  const colon = text.indexOf(":");
  if (colon < 0) throw invalid(`${field}: missing the "<algorithm>:" prefix (${expected})`);
  const algorithm = text.slice(0, colon);
  if (!isHashAlgorithm(algorithm)) {
    throw invalid(`${field}: unknown algorithm ${quoted(algorithm)} (${expected})`);
  }
  const hex = text.slice(colon + 1);
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad) throw invalid(`${field}: ${algorithm} digest has a non-hex character ${quoted(bad[0])}`);
  if (hex.length !== DIGEST_HEX_DIGITS) {
    throw invalid(`${field}: ${algorithm} digest must be ${DIGEST_HEX_DIGITS} hex digits, got ${hex.length}`);
  }
  return { algorithm, hex: hex.toLowerCase() };
}
