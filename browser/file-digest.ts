import { blake3 } from "@noble/hashes/blake3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { sha3_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { HashAlgorithm } from "../core/types.js";

const streamed = { "sha3-256": sha3_256, sha256, blake3 } as const;

/**
 * WebCrypto digests a whole ArrayBuffer at once (it cannot stream), so above this size SHA-256
 * streams through @noble/hashes instead of holding the file in memory.
 */
const WEBCRYPTO_MAX_BYTES = 256 * 1024 * 1024;

/**
 * The hex digest of a local file, computed in the browser. SHA-256 uses WebCrypto (native, fast)
 * where the page is a secure context (https or localhost; elsewhere `crypto.subtle` is missing);
 * SHA3-256 and BLAKE3, which WebCrypto lacks, stream through @noble/hashes chunk by chunk, with
 * `onProgress` told the fraction read so far.
 */
export async function fileDigest(
  file: Blob,
  algorithm: HashAlgorithm,
  onProgress: (fraction: number) => void,
): Promise<string> {
  if (algorithm === "sha256" && globalThis.crypto?.subtle && file.size <= WEBCRYPTO_MAX_BYTES) {
    const digest = await crypto.subtle.digest("SHA-256", await file.arrayBuffer());
    return bytesToHex(new Uint8Array(digest));
  }
  const hash = streamed[algorithm].create();
  const reader = file.stream().getReader();
  let read = 0;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    hash.update(chunk.value);
    read += chunk.value.length;
    onProgress(file.size > 0 ? read / file.size : 1);
  }
  return bytesToHex(hash.digest());
}
