import type { Readable } from "node:stream";
import type { HashAlgorithm } from "./algorithms.js";
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
