import { createHash } from "node:crypto";
import type { HashAlgorithm } from "../../core/types.js";

/** An incremental hash: feed chunks as they arrive, read the hex digest once at the end. */
export interface Hasher {
  update(chunk: Uint8Array): void;
  digest(): string;
}

/**
 * node:crypto for SHA-2 and SHA-3 (OpenSSL, the fastest measured here); BLAKE3 from hash-wasm,
 * since node:crypto has none and hash-wasm measured 17x faster than @noble/hashes (962 vs 55 MB/s),
 * imported on first use so a service nobody asks for BLAKE3 does not hold it.
 */
export async function createHasher(algorithm: HashAlgorithm): Promise<Hasher> {
  if (algorithm === "blake3") {
    const { createBLAKE3 } = await import("hash-wasm");
    const blake3 = await createBLAKE3();
    blake3.init();
    return { update: (chunk) => void blake3.update(chunk), digest: () => blake3.digest("hex") };
  }
  const hash = createHash(algorithm);
  return { update: (chunk) => void hash.update(chunk), digest: () => hash.digest("hex") };
}

/** The digest of bytes already in memory (small inputs: test vectors, canonical documents). */
export async function hashBytes(algorithm: HashAlgorithm, bytes: Uint8Array): Promise<string> {
  const hasher = await createHasher(algorithm);
  hasher.update(bytes);
  return hasher.digest();
}
