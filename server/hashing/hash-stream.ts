import type { Readable } from "node:stream";
import type { HashAlgorithm } from "../../core/types.js";
import { createHasher } from "./hasher.js";

export interface StreamDigest {
  /** Lowercase hex digest. */
  hash: string;
  /** Bytes read. */
  size: number;
}

/** Hashes a stream chunk by chunk as it arrives; memory stays at one chunk whatever the size. */
export async function hashStream(stream: Readable, algorithm: HashAlgorithm): Promise<StreamDigest> {
  const hasher = await createHasher(algorithm);
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    hasher.update(bytes);
  }
  return { hash: hasher.digest(), size };
}

export interface StreamDigests {
  /** Lowercase hex digest per algorithm asked for. */
  hashes: Partial<Record<HashAlgorithm, string>>;
  /** Bytes read. */
  size: number;
}

/**
 * Hashes a stream with several algorithms in one pass (an upload whose algorithm is named only
 * after its file): each chunk goes to every hasher as it arrives, so memory stays at one chunk.
 */
export async function hashStreamMany(
  stream: Readable,
  algorithms: readonly HashAlgorithm[],
): Promise<StreamDigests> {
  const hashers = await Promise.all(algorithms.map(createHasher));
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += bytes.length;
    for (const hasher of hashers) hasher.update(bytes);
  }
  const hashes: StreamDigests["hashes"] = {};
  for (const [i, algorithm] of algorithms.entries()) hashes[algorithm] = hashers[i]!.digest();
  return { hashes, size };
}
