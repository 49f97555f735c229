import { execFileSync } from "node:child_process";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestDocument } from "../../core/digest.js";
import { hashStreamMany } from "../../server/hashing/hash-stream.js";
import { hashBytes } from "../../server/hashing/hasher.js";
import { filePart, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";

/** The official BLAKE3 input: bytes 0, 1, ..., 250, 0, 1, ... */
const blake3Input = (length: number) => Uint8Array.from({ length }, (_, i) => i % 251);

// The first 32 bytes of the `hash` outputs in BLAKE3-team/BLAKE3 test_vectors/test_vectors.json.
const blake3Vectors: [number, string][] = [
  [0, "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"],
  [1, "2d3adedff11b61f14c886e35afa036736dcd87a74d27b5c1510225d0f592e213"],
  [1023, "10108970eeda3eb932baac1428c7a2163b0e924c9a9e25b35bba72b28f70bd11"],
  [1024, "42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7"],
  [1025, "d00278ae47eb27b34faecf67b4fe263f82d5412916c1ffd97c8cb7fb814b8444"],
  [2048, "e776b6028c7cd22a4d0ba182a8bf62205d2ef576467e838ed6f2529b85fba24a"],
  [8192, "aae792484c8efe4f19e2ca7d371d8c467ffb10748d8a5a1ae579948f718a2a63"],
  [102400, "bc3e3d41a1146b069abffad3c0d44860cf664390afce4d9661f7902e7943e085"],
];

/** Inputs for SHA-2/SHA-3, hashed by the system's own tools for the expected values. */
const inputs: [string, Uint8Array][] = [
  ["empty", new Uint8Array(0)],
  ["abc", new TextEncoder().encode("abc")],
  ["1 MiB + 7 of i % 251", blake3Input(1024 * 1024 + 7)],
];

const sha256sum = (bytes: Uint8Array) =>
  execFileSync("sha256sum", { input: bytes }).toString().split(" ")[0]!;
const opensslSha3 = (bytes: Uint8Array) =>
  execFileSync("openssl", ["dgst", "-sha3-256", "-r"], { input: bytes }).toString().split(" ")[0]!;

/** A stream that yields `bytes` in uneven chunks, so chunk boundaries cannot hide a bug. */
function chunked(bytes: Uint8Array): Readable {
  const sizes = [1, 63, 1000, 4096, 7];
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.length; i++) {
    const size = sizes[i % sizes.length]!;
    chunks.push(Buffer.from(bytes.subarray(at, at + size)));
    at += size;
  }
  return Readable.from(chunks);
}

describe.each(inputs)("SHA-2 and SHA-3 of %s match the system tools", (_name, bytes) => {
  it.each([
    ["sha256", sha256sum],
    ["sha3-256", opensslSha3],
  ] as const)("%s", async (algorithm, tool) => {
    const expected = tool(bytes);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
    expect(await hashBytes(algorithm, bytes)).toBe(expected);
    expect((await hashStreamMany(chunked(bytes), [algorithm])).hashes[algorithm]).toBe(expected);
    expect(await digestDocument(algorithm, bytes)).toBe(expected);
  });
});

describe.each(blake3Vectors)("BLAKE3 official vector, input length %i", (length, expected) => {
  const bytes = blake3Input(length);

  it("server (hash-wasm), in one piece and streamed in uneven chunks", async () => {
    expect(await hashBytes("blake3", bytes)).toBe(expected);
    const streamed = await hashStreamMany(chunked(bytes), ["blake3"]);
    expect(streamed).toEqual({ hashes: { blake3: expected }, size: length });
  });

  it("SDK (@noble/hashes), from bytes and from a Blob", async () => {
    expect(await digestDocument("blake3", bytes)).toBe(expected);
    expect(await digestDocument("blake3", new Blob([bytes]))).toBe(expected);
  });
});

describe("POST /hash gives the same bytes-exact digests", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  });
  afterAll(() => svc.close());

  const hashOver = async (algorithm: string, bytes: Uint8Array) => {
    const res = await postParts(`${svc.baseUrl}/hash`, [
      { name: "algorithm", value: algorithm },
      filePart(bytes),
    ]);
    expect(res.status).toBe(200);
    return (await res.json()) as { hash: string; size_bytes: number };
  };

  it.each(blake3Vectors.filter(([n]) => n === 0 || n === 102400))(
    "blake3, length %i",
    async (length, expected) => {
      expect(await hashOver("blake3", blake3Input(length))).toMatchObject({
        hash: expected,
        size_bytes: length,
      });
    },
  );

  it("sha256 and sha3-256 of 1 MiB + 7 bytes", async () => {
    const bytes = inputs[2]![1];
    expect((await hashOver("sha256", bytes)).hash).toBe(sha256sum(bytes));
    expect((await hashOver("sha3-256", bytes)).hash).toBe(opensslSha3(bytes));
  });
});
