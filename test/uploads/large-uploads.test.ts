import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import { createBLAKE3 } from "hash-wasm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RING_BYTES } from "../../server/hashing/ring-hasher.js";
import { filePart, type Part, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";

// Uploads past the ring (server/hashing/ring-hasher.ts) are hashed on the hashing thread: the same
// answers as before, several at once, and the same refusals when too large or cut off.
const MAX = 3 * RING_BYTES;
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ MAX_UPLOAD_BYTES: String(MAX), RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

async function blake3(bytes: Uint8Array): Promise<string> {
  const hasher = await createBLAKE3();
  hasher.init();
  hasher.update(bytes);
  return hasher.digest("hex");
}
const sha = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");

async function post(path: string, parts: Part[]): Promise<Record<string, unknown>> {
  const res = await postParts(`${svc.baseUrl}${path}`, parts);
  const body = (await res.json()) as Record<string, unknown>;
  expect(res.status, JSON.stringify(body)).toBeLessThan(300);
  return body;
}

describe("large uploads", () => {
  it("several at once, each algorithm and field order, with the digests of node:crypto and hash-wasm", async () => {
    const bodies = Array.from({ length: 6 }, (_, i) => randomBytes(2 * RING_BYTES + 1000 * i));
    const [a, b, c, d, e, f] = bodies as [Buffer, Buffer, Buffer, Buffer, Buffer, Buffer];
    const answers = await Promise.all([
      post("/hash?algorithm=sha256", [filePart(a)]),
      post("/hash?algorithm=sha3-256", [filePart(b)]),
      post("/hash?algorithm=blake3", [filePart(c)]),
      // The algorithm after the file: all three are computed as it streams.
      post("/hash", [filePart(d), { name: "algorithm", value: "blake3" }]),
      post("/stamps", [{ name: "generate_fp", value: "false" }, filePart(e)]),
      post("/stamps", [filePart(f)]),
    ]);
    expect(answers.map((x) => x.hash ?? x.document_hash)).toEqual([
      sha("sha256", a),
      sha("sha3-256", b),
      await blake3(c),
      await blake3(d),
      sha("sha3-256", e),
      sha("sha3-256", f),
    ]);
    expect(answers[0]!.size_bytes).toBe(a.length);
    // A stamp's upload is also hashed with SHA-256 in the same read, on the thread (its bundle's digest).
    const stored = async (answer: Record<string, unknown>) =>
      (await svc.service.ctx.store.stamps.get(answer.stamp_id as string))!.contentSha256;
    expect([await stored(answers[4]!), await stored(answers[5]!)]).toEqual([
      sha("sha256", e),
      sha("sha256", f),
    ]);
  });

  it("a file over MAX_UPLOAD_BYTES is refused with a 413", async () => {
    const res = await postParts(`${svc.baseUrl}/hash`, [filePart(new Uint8Array(MAX + 1))]);
    expect(res.status).toBe(413);
  });

  it("a client that goes away mid-file leaves the next uploads unharmed", async () => {
    const req = http.request(`${svc.baseUrl}/hash`, {
      method: "POST",
      headers: { "content-type": "multipart/form-data; boundary=gone", "content-length": String(MAX) },
    });
    req.on("error", () => {});
    req.write('--gone\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\n\r\n');
    req.write(randomBytes(2 * RING_BYTES));
    await new Promise((resolve) => setTimeout(resolve, 100));
    req.destroy();
    const bytes = randomBytes(2 * RING_BYTES);
    const body = await post("/hash?algorithm=sha256", [filePart(bytes)]);
    expect(body.hash).toBe(sha("sha256", bytes));
  });
});
