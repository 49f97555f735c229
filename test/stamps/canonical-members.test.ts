import { describe, expect, it } from "vitest";
import { jcs } from "../../core/jcs.js";
import { loadSpec } from "../../server/contract/openapi.js";
import { CanonicalMembers, canonical, type UnsignedDocument } from "../../server/stamps/canonical-members.js";
import type { StampDocument } from "../../server/stamps/stamp-repository.js";

// Values written by JSON.stringify alone (members already in JCS order) and by the JCS library
// (any other order, or values JSON.stringify writes differently) must give the same text.
const cases: [string, Record<string, unknown>][] = [
  ["members in order", { a: 1, b: "x", c: null, d: true, e: [1, "2", null] }],
  ["members out of order", { b: 1, a: 2 }],
  ["nested objects in order", { a: { x: 1, y: { m: [{ p: 1, q: 2 }] } } }],
  ["nested objects out of order", { a: { y: 1, x: 2 }, b: [{ q: 1, p: 2 }] }],
  ["integer-like names (listed first by JavaScript)", { a: { "10": 1, "9": 2, b: 3 } }],
  ["names beyond ASCII, ordered by UTF-16 code units", { a: { z: 1, é: 2, "😀": 3, "\uffff": 4 } }],
  ["numbers JCS writes like ECMAScript", { a: [1e21, 1e-7, -0, 0.1, 123456789012345680000] }],
  ["strings needing escapes", { a: ['\u0000\u001f"\\\u2028', "\ud800"] }],
  ["an undefined member, left out", { a: { b: undefined, c: 1 }, d: 2 }],
  ["undefined in an array, written null", { a: [undefined, 1] }],
  ["a value with toJSON", { a: new Date("2026-01-01T00:00:00.000Z") }],
  ["an empty object and array", { a: {}, b: [] }],
];

describe("canonical", () => {
  it.each(cases)("writes the JCS text of a value: %s", (_, object) => {
    expect(canonical(object)).toBe(jcs(object));
  });
});

const hex = "ab".repeat(32);
const plain: UnsignedDocument = {
  format: "stampd.stamp/v1",
  stamp_id: "stp_01JD0000000000000000000000",
  created_at: "2026-11-27T00:00:00.000Z",
  document: { algorithm: "sha256", hash: hex, size_bytes: null, version: "1.0.0" },
  anchors: [],
  trust_threshold: 5,
  preset: null,
  storage_mode: "local",
  encryption: "none",
  fingerprint: null,
  author_public_key: null,
  service_public_key: `ed25519:${hex}`,
};
// Every optional member present, objects out of JCS order, text needing escapes.
const full: UnsignedDocument = {
  ...plain,
  document: { ...plain.document, size_bytes: 1024 },
  anchors: ["log", "bitcoin"],
  trust_threshold: 7.5,
  preset: "standard",
  fingerprint: { standard_hash: hex, merkle_root: hex, chunk_count: 3 } as UnsignedDocument["fingerprint"],
  author_public_key: `ed25519:${"cd".repeat(32)}`,
  description: 'a "quoted" \u2028 description é😀',
  metadata: { z: "1", a: "\u0000", é: "x", "10": "y" },
};
const signatures: StampDocument["signatures"][] = [
  { author: null, service: "ef".repeat(64) },
  {
    author: "01".repeat(64),
    service: null,
    service_batch: {
      audit_path: [hex, hex],
      leaf_index: 1,
      root: hex,
      signature: "ef".repeat(64),
      tree_size: 3,
    },
  },
];

describe("CanonicalMembers", () => {
  it.each([
    ["a plain document", plain],
    ["a document with every member", full],
  ])("writes the JCS text of %s", (_, unsigned) => {
    expect(new CanonicalMembers(unsigned).text()).toBe(jcs(unsigned));
  });

  it.each(signatures.flatMap((s) => [plain, full].map((d): [UnsignedDocument, typeof s] => [d, s])))(
    "writes the JCS text of the document with its signatures",
    (unsigned, signed) => {
      expect(new CanonicalMembers(unsigned).textWith(signed)).toBe(jcs({ ...unsigned, signatures: signed }));
    },
  );

  // CanonicalMembers names the members itself (in JCS order, for speed): a member the spec adds to
  // StampDocument must be added there too, or it would be signed and stored without it.
  it("covers every member the spec gives a stamp document", () => {
    type Schema = { properties: Record<string, Schema> };
    const schemas = (loadSpec() as unknown as { components: { schemas: Record<string, Schema> } }).components
      .schemas;
    const stampDocument = schemas.StampDocument!;
    expect([...Object.keys(full), "signatures"].sort()).toEqual(Object.keys(stampDocument.properties).sort());
    expect(Object.keys(full.document).sort()).toEqual(
      Object.keys(stampDocument.properties.document!.properties).sort(),
    );
  });
});
