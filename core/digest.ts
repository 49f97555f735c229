import { blake3 } from "@noble/hashes/blake3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { sha3_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { HashAlgorithm } from "./types.js";

const hashes = { "sha3-256": sha3_256, sha256, blake3 } as const;

/**
 * The hex digest of a document in memory or a Blob (a browser File). A Blob is read as a stream,
 * chunk by chunk, so a large file is never held whole. Pure JS (@noble/hashes): runs in browsers.
 */
export async function digestDocument(algorithm: HashAlgorithm, document: Uint8Array | Blob): Promise<string> {
  const hash = hashes[algorithm].create();
  if (document instanceof Uint8Array) return bytesToHex(hash.update(document).digest());
  const reader = document.stream().getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) hash.update(chunk.value);
  return bytesToHex(hash.digest());
}
