import type { Readable } from "node:stream";
import type { HashAlgorithm } from "../../core/types.js";
import { RingHasher } from "./ring-hasher.js";

export interface StreamDigests {
  /** Lowercase hex digest per algorithm asked for. */
  hashes: Partial<Record<HashAlgorithm, string>>;
  /** Bytes read. */
  size: number;
}

/**
 * Hashes a stream with several algorithms in one pass (an upload whose algorithm is named only
 * after its file). Past its first 1 MiB, the hashing runs on the hashing thread while this one
 * goes on receiving (ring-hasher.ts); memory stays at the ring whatever the size.
 */
export async function hashStreamMany(
  stream: Readable,
  algorithms: readonly HashAlgorithm[],
): Promise<StreamDigests> {
  const hasher = new RingHasher(algorithms);
  let size = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      const full = hasher.update(bytes);
      if (full) await full;
    }
  } catch (err) {
    hasher.abort();
    throw err;
  }
  const digests = await hasher.digest();
  const hashes: StreamDigests["hashes"] = {};
  for (const [i, algorithm] of algorithms.entries()) hashes[algorithm] = digests[i];
  return { hashes, size };
}
