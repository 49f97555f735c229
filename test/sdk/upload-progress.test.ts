// onUploadProgress on Node against a real service: every kind of upload reports the document's
// bytes as they are sent, from 0 to its size (a stream of unknown length has no total), and a
// retried upload starts again from 0.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Uploadable, type UploadProgress } from "../../sdk/src/index.js";
import { type RunningService, startService } from "../helpers/service.js";

// Several chunks of the encoder's 64 KiB, so that progress has steps in between.
const SIZE = 300_000;
const content = randomBytes(SIZE);
const sha3 = createHash("sha3-256").update(content).digest("hex");
let svc: RunningService;
let dir: string;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  dir = mkdtempSync(join(tmpdir(), "stampd-progress-"));
  writeFileSync(join(dir, "doc.bin"), content);
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectSteadyProgress(seen: UploadProgress[], total: number | undefined): void {
  expect(seen.length).toBeGreaterThan(2);
  expect(seen[0]).toEqual({ loaded: 0, total });
  expect(seen.at(-1)).toEqual({ loaded: SIZE, total });
  for (let i = 1; i < seen.length; i++) expect(seen[i]!.loaded).toBeGreaterThanOrEqual(seen[i - 1]!.loaded);
}

const kinds: [string, () => Uploadable, number | undefined][] = [
  ["a path", () => join(dir, "doc.bin"), SIZE],
  ["a Blob", () => new Blob([content]), SIZE],
  ["bytes", () => new Uint8Array(content), SIZE],
  [
    "a Node stream",
    () => Readable.from([content.subarray(0, 100_000), content.subarray(100_000)]),
    undefined,
  ],
];

describe("onUploadProgress (Node)", () => {
  for (const [kind, file, total] of kinds) {
    it(`stamps.create reports the bytes of ${kind} as they are sent`, async () => {
      const seen: UploadProgress[] = [];
      const stamp = await createClient({ baseUrl: svc.baseUrl }).stamps.create(
        { file: file() },
        { onUploadProgress: (p) => seen.push(p) },
      );
      expect(stamp.document_hash).toBe(sha3);
      expectSteadyProgress(seen, total);
    });
  }

  it("hash.create and fingerprints.create report progress too", async () => {
    const client = createClient({ baseUrl: svc.baseUrl });
    const hashed: UploadProgress[] = [];
    await client.hash.create({ file: new Blob([content]) }, { onUploadProgress: (p) => hashed.push(p) });
    expectSteadyProgress(hashed, SIZE);
    const text = Buffer.from("# Title\n\nA paragraph of text.\n\n## Part\n\nMore text here.\n".repeat(8000));
    const fingerprinted: UploadProgress[] = [];
    await client.fingerprints.create(
      { file: new Blob([text]), filename: "doc.md" },
      { onUploadProgress: (p) => fingerprinted.push(p) },
    );
    expect(fingerprinted.at(-1)).toEqual({ loaded: text.length, total: text.length });
  });

  it("a retried upload starts again from 0", async () => {
    let calls = 0;
    // The first attempt is answered 503 after the body was read, as by an overloaded proxy.
    const flaky: typeof fetch = async (input, init) => {
      if (++calls > 1) return fetch(input, init);
      await new Request(input, init).arrayBuffer();
      return new Response("{}", { status: 503, headers: { "content-type": "application/json" } });
    };
    const seen: UploadProgress[] = [];
    await createClient({ baseUrl: svc.baseUrl, fetch: flaky }).stamps.create(
      { file: new Blob([content]) },
      { onUploadProgress: (p) => seen.push(p) },
    );
    expect(calls).toBe(2);
    expect(seen.filter((p) => p.loaded === 0)).toHaveLength(2);
    expect(seen.filter((p) => p.loaded === SIZE)).toHaveLength(2);
  });
});
