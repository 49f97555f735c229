import { blake3 } from "@noble/hashes/blake3.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { sha3_256 } from "@noble/hashes/sha3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { HashAlgorithm } from "../core/types.js";

const hashes = { "sha3-256": sha3_256, sha256, blake3 } as const;

/**
 * Bytes read and hashed at a time. Each slice is read asynchronously, so between two slices the
 * tab handles input and paints; hashing one takes a few milliseconds, the longest the page is
 * busy. WebCrypto's digest would be faster but takes the whole file in one ArrayBuffer, a
 * several-hundred-MiB file included, and tells nothing of its progress.
 */
const SLICE_BYTES = 1024 * 1024;

/**
 * The hex digest of a local file, computed in the browser (nothing is uploaded): read slice by
 * slice through @noble/hashes, with `onProgress` told the fraction hashed after each slice. An
 * aborted `signal` (another file chosen meanwhile) stops the reading with its reason.
 */
export async function fileDigest(
  file: Blob,
  algorithm: HashAlgorithm,
  onProgress: (fraction: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  const hash = hashes[algorithm].create();
  for (let offset = 0; offset < file.size; offset += SLICE_BYTES) {
    const slice = await file.slice(offset, offset + SLICE_BYTES).arrayBuffer();
    signal?.throwIfAborted();
    hash.update(new Uint8Array(slice));
    onProgress(Math.min(offset + SLICE_BYTES, file.size) / file.size);
  }
  return bytesToHex(hash.digest());
}
