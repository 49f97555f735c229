import { createHash } from "node:crypto";
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
 *
 * SHA-256 beside another algorithm is hashed here instead, as the chunks arrive: with the CPU's
 * SHA extensions it costs a third of SHA3-256 (openssl: 1613 against 541 MiB/s), and on the
 * hashing thread, which bounds an upload, the two ran in series (bench/README.md, "SHA-256 beside
 * an upload's SHA3-256"), while this thread had a core's spare time beside it.
 */
export async function hashStreamMany(
  stream: Readable,
  algorithms: readonly HashAlgorithm[],
): Promise<StreamDigests> {
  const here = algorithms.length > 1 && algorithms.includes("sha256") ? createHash("sha256") : null;
  const onRing = here ? algorithms.filter((algorithm) => algorithm !== "sha256") : algorithms;
  const hasher = new RingHasher(onRing);
  let size = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      size += bytes.length;
      here?.update(bytes);
      const full = hasher.update(bytes);
      if (full) await full;
    }
  } catch (err) {
    hasher.abort();
    throw err;
  }
  const digests = await hasher.digest();
  const hashes: StreamDigests["hashes"] = {};
  for (const [i, algorithm] of onRing.entries()) hashes[algorithm] = digests[i];
  if (here) hashes.sha256 = here.digest("hex");
  return { hashes, size };
}
