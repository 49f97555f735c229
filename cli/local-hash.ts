import { createReadStream } from "node:fs";
import { basename } from "node:path";
import type { Schemas } from "../sdk/src/index.js";
import { createHasher } from "../server/hashing/hasher.js";

/**
 * Hashes a file on this machine with the server's own hasher, in the shape `POST /hash` answers;
 * `onBytes` sees every chunk read (for a progress bar).
 */
export async function hashLocally(
  path: string,
  algorithm: Schemas["HashAlgorithm"],
  onBytes: (bytes: number) => void = () => {},
): Promise<Schemas["HashResult"]> {
  const hasher = await createHasher(algorithm);
  let size = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hasher.update(chunk);
    size += chunk.byteLength;
    onBytes(chunk.byteLength);
  }
  return { filename: basename(path), size_bytes: size, algorithm, hash: hasher.digest() };
}
