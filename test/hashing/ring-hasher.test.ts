import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { createBLAKE3 } from "hash-wasm";
import { describe, expect, it, vi } from "vitest";
import type { HashAlgorithm } from "../../core/types.js";
import { hashStreamMany } from "../../server/hashing/hash-stream.js";
import { HashingThread, type JobListener, type ThreadRequest } from "../../server/hashing/hashing-thread.js";
import { RING_BYTES, RingHasher } from "../../server/hashing/ring-hasher.js";
import { SeededRandom } from "../reliability/seeded-random.js";

// The ring hasher (server/hashing/ring-hasher.ts): a body within the 1 MiB ring is hashed on the
// calling thread, a longer one on the hashing thread; either way the digests are node:crypto's and
// hash-wasm's, whatever the chunking.
const ALL: HashAlgorithm[] = ["sha256", "sha3-256", "blake3"];

async function expected(bytes: Uint8Array): Promise<Record<string, string>> {
  const blake3 = await createBLAKE3();
  blake3.init();
  blake3.update(bytes);
  return {
    sha256: createHash("sha256").update(bytes).digest("hex"),
    "sha3-256": createHash("sha3-256").update(bytes).digest("hex"),
    blake3: blake3.digest("hex"),
  };
}

/** `bytes` cut at random places (1 byte to 200 KiB), each chunk a copy. */
function randomChunks(bytes: Uint8Array, random: SeededRandom): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const size = random.int(1, 200 * 1024);
    chunks.push(Buffer.from(bytes.subarray(at, at + size)));
    at += size;
  }
  return Readable.from(chunks);
}

describe("digests equal node:crypto's and hash-wasm's on random chunkings", () => {
  const random = new SeededRandom(24);
  const data = randomBytes(5 * RING_BYTES + 12_345);
  it.each([0, 1, RING_BYTES - 1, RING_BYTES, RING_BYTES + 1, 3 * RING_BYTES + 7, data.length])(
    "%i bytes",
    async (size) => {
      const bytes = data.subarray(0, size);
      const got = await hashStreamMany(randomChunks(bytes, random), ALL);
      expect(got).toEqual({ hashes: await expected(bytes), size });
    },
  );

  it("each algorithm alone", async () => {
    const bytes = data.subarray(0, 2 * RING_BYTES + 3);
    const want = await expected(bytes);
    for (const algorithm of ALL) {
      const got = await hashStreamMany(randomChunks(bytes, random), [algorithm]);
      expect(got.hashes).toEqual({ [algorithm]: want[algorithm] });
    }
  });

  it("several streams at once, more than the one thread, each with its own digests", async () => {
    const bodies = Array.from({ length: 6 }, () => randomBytes(2 * RING_BYTES + random.int(0, 4096)));
    const got = await Promise.all(bodies.map((b) => hashStreamMany(randomChunks(b, random), ALL)));
    for (const [i, body] of bodies.entries()) expect(got[i]!.hashes).toEqual(await expected(body));
  });
});

describe("failures", () => {
  it("a stream that fails midway rejects with its error, and the next stream hashes right", async () => {
    const failing = Readable.from(
      (async function* () {
        yield randomBytes(RING_BYTES);
        yield randomBytes(RING_BYTES);
        throw new Error("client went away");
      })(),
    );
    await expect(hashStreamMany(failing, ALL)).rejects.toThrow("client went away");
    const bytes = randomBytes(3 * RING_BYTES);
    expect((await hashStreamMany(Readable.from([bytes]), ALL)).hashes).toEqual(await expected(bytes));
  });
});

/** A thread that records what it is sent and answers only when told. */
class HeldThread {
  readonly sent: Array<Exclude<ThreadRequest, { type: "start" }>> = [];
  listener: JobListener | null = null;
  start(_algorithms: readonly HashAlgorithm[], _ring: SharedArrayBuffer, listener: JobListener): number {
    this.listener = listener;
    return 1;
  }
  send(request: Exclude<ThreadRequest, { type: "start" }>): void {
    this.sent.push(request);
  }
}

describe("hand-over and backpressure", () => {
  const held = () => {
    const thread = new HeldThread();
    return { thread, hasher: new RingHasher(["sha256"], thread as unknown as HashingThread) };
  };

  it("a body within the ring never reaches the thread", async () => {
    const { thread, hasher } = held();
    expect(hasher.update(new Uint8Array(RING_BYTES))).toBeUndefined();
    await hasher.digest();
    expect(thread.listener).toBeNull();
  });

  it("past the ring, waits until the thread frees a slot", async () => {
    const { thread, hasher } = held();
    const wait = hasher.update(new Uint8Array(RING_BYTES + 1));
    expect(wait).toBeInstanceOf(Promise);
    expect(thread.sent.map((r) => r.type)).toEqual(["slot", "slot", "slot", "slot"]);
    let resumed = false;
    void wait!.then(() => {
      resumed = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(resumed).toBe(false);
    thread.listener!.free(0);
    await wait;
    expect(resumed).toBe(true);
  });

  it("a thread that dies fails the waiting update and the digest", async () => {
    const { thread, hasher } = held();
    const wait = hasher.update(new Uint8Array(RING_BYTES + 1));
    thread.listener!.fail(new Error("the hashing thread stopped"));
    await expect(wait).rejects.toThrow("the hashing thread stopped");
    await expect(hasher.digest()).rejects.toThrow("the hashing thread stopped");
  });
});

describe("the thread's life", () => {
  it("stops once idle and starts again for the next large body", async () => {
    const thread = new HashingThread(50);
    const hashOn = async (bytes: Uint8Array) => {
      const hasher = new RingHasher(["sha256"], thread);
      await hasher.update(bytes);
      return (await hasher.digest())[0];
    };
    const bytes = randomBytes(RING_BYTES + 1);
    const want = createHash("sha256").update(bytes).digest("hex");
    expect(await hashOn(bytes)).toBe(want);
    expect(thread.running).toBe(true);
    await vi.waitFor(() => expect(thread.running).toBe(false));
    expect(await hashOn(bytes)).toBe(want);
  });
});
