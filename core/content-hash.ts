import { hashAlgorithms } from "../gen/openapi/enums.js";
import { quote } from "./quote.js";
import type { HashAlgorithm } from "./types.js";

/** The algorithms of the spec's `HashAlgorithm` (generated from it); sha3-256 is the default everywhere. */
export { hashAlgorithms };
export const defaultHashAlgorithm: HashAlgorithm = "sha3-256";

export function isHashAlgorithm(value: string): value is HashAlgorithm {
  return (hashAlgorithms as readonly string[]).includes(value);
}

/** A digest with its algorithm, as the contracts write it: `<algorithm>:<hex digest>`. */
export interface ContentHash {
  algorithm: HashAlgorithm;
  /** 64 lowercase hex digits: every supported algorithm has a 256-bit digest. */
  hex: string;
}

/** Text that is not `<algorithm>:<hex digest>`; the message names the field and the problem. */
export class ContentHashError extends Error {
  override readonly name = "ContentHashError";
}

const DIGEST_HEX_DIGITS = 64;
const expected = `expected ${hashAlgorithms.slice(0, -1).join(", ")} or ${hashAlgorithms.at(-1)}`;

/**
 * The one parser of a content hash's text form `<algorithm>:<hex digest>` (stamp.proto's
 * content_hash, the WebSocket's contentHash, REST's `hash` query): the algorithm lower case and
 * exact, the hex digits in either case (returned lower case). Each way of being malformed throws a
 * `ContentHashError` of its own wording, naming `field`.
 *
 * @example
 * parseContentHashText("sha256:9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08");
 * // { algorithm: "sha256", hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08" }
 */
export function parseContentHashText(text: string, field = "content_hash"): ContentHash {
  const fail = (problem: string) => new ContentHashError(`${field}: ${problem}`);
  if (text === "") throw fail("required, as <algorithm>:<hex digest>");
  const colon = text.indexOf(":");
  if (colon < 0) throw fail(`missing the "<algorithm>:" prefix (${expected})`);
  const algorithm = text.slice(0, colon);
  if (!isHashAlgorithm(algorithm)) throw fail(`unknown algorithm ${quote(algorithm)} (${expected})`);
  const hex = text.slice(colon + 1);
  const bad = /[^0-9a-fA-F]/.exec(hex);
  if (bad) throw fail(`${algorithm} digest has a non-hex character ${quote(bad[0])}`);
  if (hex.length !== DIGEST_HEX_DIGITS) {
    throw fail(`${algorithm} digest must be ${DIGEST_HEX_DIGITS} hex digits, got ${hex.length}`);
  }
  return { algorithm, hex: hex.toLowerCase() };
}

/** The text form of a content hash, `<algorithm>:<hex digest>`. */
export const formatContentHash = (hash: ContentHash): string => `${hash.algorithm}:${hash.hex}`;
