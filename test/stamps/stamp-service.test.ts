import type { Readable } from "node:stream";
import { Readable as ReadableStream } from "node:stream";
import { decodeTime } from "ulid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import { ManualClock } from "../../server/clock.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { IdentityService } from "../../server/identities/identity-service.js";
import type { StampFingerprinter } from "../../server/stamps/fingerprinter.js";
import { StampService, type StampServiceDeps } from "../../server/stamps/stamp-service.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { testServiceKeys } from "../helpers/service-keys.js";
import { sha3 } from "./helpers.js";

// The domain service as gRPC and WebSocket use it, over an in-memory SQLite store and a manual clock.
const store = new SqliteStore(":memory:");
const keys = testServiceKeys();
const clock = new ManualClock("2026-03-04T05:06:07.089Z");
const events = new MemoryEventBus();
const identities = new IdentityService(store.identities, store.stamps, keys.atRest, clock);
const deps = (extra: Partial<StampServiceDeps> = {}): StampServiceDeps => ({
  stamps: store.stamps,
  identities,
  signing: keys.signing,
  clock,
  events,
  ...extra,
});
const stamps = new StampService(deps());
const trusted = { trustedServiceKeys: [keys.signing.publicKey] };

beforeAll(() => store.migrate());
afterAll(() => store.close());

describe("createFromHash", () => {
  it("stamps the given hash: no size, the clock's time, description and metadata signed in", async () => {
    const seen: AnyDomainEvent[] = [];
    const stop = events.subscribe((e) => seen.push(e));
    const view = await stamps.createFromHash({
      contentHash: { algorithm: "sha256", hex: "a".repeat(64) },
      accountId: "acct_1",
      description: "contract, final",
      metadata: { filename: "contract.pdf" },
    });
    stop();
    const doc = view.stamp.document;
    expect(doc).toMatchObject({
      created_at: "2026-03-04T05:06:07.089Z",
      document: { hash: "a".repeat(64), algorithm: "sha256", size_bytes: null, version: "1.0.0" },
      description: "contract, final",
      metadata: { filename: "contract.pdf" },
    });
    expect(decodeTime(view.stamp.id.slice(4))).toBe(clock.now().getTime());
    expect((await verifyStamp(doc, trusted)).is_valid).toBe(true);
    expect(seen).toEqual([
      {
        type: "stamp_created",
        data: {
          id: view.stamp.id,
          contentHash: `sha256:${"a".repeat(64)}`,
          timestamp: doc.created_at,
          metadata: { filename: "contract.pdf" },
        },
        scope: { accountId: "acct_1", stampId: view.stamp.id, metadata: { filename: "contract.pdf" } },
      },
    ]);
  });

  it("leaves empty annotations out of the document (proto3 cannot tell empty from absent)", async () => {
    const view = await stamps.createFromHash({
      contentHash: { algorithm: "blake3", hex: "b".repeat(64) },
      accountId: null,
      description: "",
      metadata: {},
    });
    expect("description" in view.stamp.document).toBe(false);
    expect("metadata" in view.stamp.document).toBe(false);
  });

  it("signs with the caller's identity", async () => {
    const { identity_id } = await identities.create("acct_2");
    const view = await stamps.createFromHash({
      contentHash: { algorithm: "sha3-256", hex: sha3("x") },
      accountId: "acct_2",
      identityId: identity_id,
    });
    expect(view.trustScore).toBe(3);
    expect((await verifyStamp(view.stamp.document, trusted)).details.author_signature).toBe("valid");
  });

  it.each([
    ["a description over 1000 characters", { description: "d".repeat(1001) }],
    [
      "33 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) },
    ],
    ["a metadata key over 64 characters", { metadata: { ["k".repeat(65)]: "v" } }],
    ["a metadata value over 512 characters", { metadata: { k: "v".repeat(513) } }],
  ])("refuses %s with invalid_argument", async (_name, change) => {
    const request = {
      contentHash: { algorithm: "sha3-256" as const, hex: sha3("x") },
      accountId: null,
      ...change,
    };
    await expect(stamps.createFromHash(request)).rejects.toMatchObject({ code: "invalid_argument" });
  });
});

describe("readUpload without a fingerprint engine", () => {
  it("answers generate_fp with not_implemented before reading the upload", async () => {
    const file = ReadableStream.from([Buffer.from("never read")]);
    await expect(stamps.readUpload(file, { generateFp: true })).rejects.toMatchObject({
      code: "not_implemented",
    });
    expect(file.readableFlowing).toBe(null);
  });
});

describe("readUpload and createFromUpload with a fingerprint engine", () => {
  it("feeds it the same bytes as the hash, commits to its summary and stores its document", async () => {
    let received = "";
    const fingerprinter: StampFingerprinter = {
      async fingerprint(file: Readable) {
        for await (const chunk of file) received += chunk;
        return {
          summary: {
            standard_hash: `sha3-256:${sha3(received)}`,
            merkle_root: "c".repeat(64),
            chunk_count: 1,
            decomposition_method: "flat",
          },
          document: { format: "stampd.fingerprint/v1", note: "fake" },
        };
      },
    };
    const withFp = new StampService(deps({ fingerprinter }));
    const upload = await withFp.readUpload(
      ReadableStream.from([Buffer.from("part one, "), Buffer.from("part two")]),
      { generateFp: true },
    );
    const view = await withFp.createFromUpload(upload, { accountId: null, generateFp: true });
    expect(received).toBe("part one, part two");
    expect(view.stamp.document.document.hash).toBe(sha3("part one, part two"));
    expect(view.stamp.document.fingerprint?.standard_hash).toBe(`sha3-256:${sha3("part one, part two")}`);
    // A fingerprint is for comparing documents; it proves nothing of time or origin: no points.
    expect(view.trustScore).toBe(1);
    expect((await store.stamps.get(view.stamp.id))?.fingerprint).toEqual({
      format: "stampd.fingerprint/v1",
      note: "fake",
    });
    expect((await verifyStamp(view.stamp.document, trusted)).trust_score).toBe(1);
  });

  it("refuses to stamp a read made with other settings than the request's", async () => {
    const upload = await stamps.readUpload(ReadableStream.from([Buffer.from("x")]), { generateFp: false });
    await expect(stamps.createFromUpload(upload, { accountId: null, preset: "archival" })).rejects.toThrow(
      "other settings",
    );
  });

  it("fails both readers when the upload fails, and stores nothing", async () => {
    const fingerprinter: StampFingerprinter = {
      async fingerprint(file: Readable) {
        for await (const _ of file);
        throw new Error("unreachable: the stream fails first");
      },
    };
    const failing = ReadableStream.from(
      (async function* () {
        yield Buffer.from("some bytes");
        throw new Error("client went away");
      })(),
    );
    const count = () => (store.db.prepare("SELECT count(*) AS n FROM stamps").get() as { n: number }).n;
    const before = count();
    await expect(
      new StampService(deps({ fingerprinter })).readUpload(failing, { generateFp: true }),
    ).rejects.toThrow("client went away");
    expect(count()).toBe(before);
  });
});
