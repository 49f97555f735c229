// The native and npm references of bench/upload.bench.ts, measured without any HTTP: `openssl dgst`
// on the file (a process of its own), and BLAKE3 npm packages hashing in this process.
import { spawn } from "node:child_process";
import { createReadStream } from "node:fs";
import { performance } from "node:perf_hooks";
import { blake3 } from "@noble/hashes/blake3.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { createBLAKE3 } from "hash-wasm";

export interface Timed {
  seconds: number;
  hex: string;
}

/** `openssl dgst -<algorithm> -r <file>`, timed from spawn to exit. */
export async function openssl(algorithm: "sha256" | "sha3-256", file: string): Promise<Timed> {
  const started = performance.now();
  const child = spawn("openssl", ["dgst", `-${algorithm}`, "-r", file], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`openssl dgst -${algorithm} exited with ${code}`);
  return { seconds: (performance.now() - started) / 1000, hex: out.split(" ")[0]! };
}

interface Incremental {
  update(bytes: Uint8Array): void;
  digest(): string;
}

/** The kept BLAKE3 packages on npm: hash-wasm (what the server uses) and @noble/hashes. */
export const blake3Packages: Record<string, () => Promise<Incremental>> = {
  "hash-wasm": async () => {
    const hash = await createBLAKE3();
    hash.init();
    return { update: (bytes) => void hash.update(bytes), digest: () => hash.digest("hex") };
  },
  "@noble/hashes": async () => {
    const hash = blake3.create();
    return { update: (bytes) => void hash.update(bytes), digest: () => bytesToHex(hash.digest()) };
  },
};

/** Hashes a file as it is read (in the 64 KiB pieces an upload arrives in), in this process. */
export async function hashFile(make: () => Promise<Incremental>, file: string): Promise<Timed> {
  const hash = await make();
  const started = performance.now();
  for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 }))
    hash.update(chunk as Buffer);
  const hex = hash.digest();
  return { seconds: (performance.now() - started) / 1000, hex };
}

/** Seconds to hash bytes already in memory, in 64 KiB updates. */
export async function hashBytes(make: () => Promise<Incremental>, bytes: Uint8Array): Promise<number> {
  const hash = await make();
  const started = performance.now();
  for (let at = 0; at < bytes.length; at += 64 * 1024) hash.update(bytes.subarray(at, at + 64 * 1024));
  hash.digest();
  return (performance.now() - started) / 1000;
}
