import type { components } from "../../gen/openapi/types.js";
import { invalid } from "../errors.js";

export type HashAlgorithm = components["schemas"]["HashAlgorithm"];

/** The algorithms of the spec's `HashAlgorithm`; sha3-256 is the default everywhere. */
export const hashAlgorithms: readonly HashAlgorithm[] = ["sha3-256", "sha256", "blake3"];
export const defaultHashAlgorithm: HashAlgorithm = "sha3-256";

export function isHashAlgorithm(value: string): value is HashAlgorithm {
  return (hashAlgorithms as readonly string[]).includes(value);
}

/** A digest with its algorithm, as the spec writes it: `<algorithm>:<64 lowercase hex>`. */
export interface ContentHash {
  algorithm: HashAlgorithm;
  hex: string;
}

const contentHashPattern = /^(sha3-256|sha256|blake3):([0-9a-f]{64})$/;

/** Parses `<algorithm>:<hex>` (gRPC and WebSocket content hashes); anything else is a 400. */
export function parseContentHash(text: string): ContentHash {
  const match = contentHashPattern.exec(text);
  if (!match) {
    throw invalid(
      `content hash must be <algorithm>:<64 lowercase hex digits> with algorithm ${hashAlgorithms.join(", ")}`,
    );
  }
  return { algorithm: match[1] as HashAlgorithm, hex: match[2]! };
}

export const formatContentHash = (hash: ContentHash): string => `${hash.algorithm}:${hash.hex}`;
