import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { jcs } from "../../core/jcs.js";
import {
  attestationsOf,
  graft,
  mergeTimestamps,
  type OtsTimestamp,
  parseTimestamp,
  serializeTimestamp,
} from "../../core/ots.js";
import { otsFile, readOtsFile, stampTimestamp } from "../../core/ots-file.js";
import type { StampDocument } from "../../core/types.js";
import { bitcoin, pending, varbytes } from "../anchors/ots-bytes.js";

const root = new Uint8Array(32).fill(1);
const sha256 = (...parts: Uint8Array[]) =>
  new Uint8Array(createHash("sha256").update(Buffer.concat(parts)).digest());
// Two calendars' answers that both start with sha256, as a reader keeps one timestamp per operation.
const answerA = parseTimestamp(Uint8Array.from([0x08, ...pending("https://a.example")]));
const answerB = parseTimestamp(
  Uint8Array.from([0x08, 0xf0, ...varbytes([7]), 0x08, ...pending("https://b.example")]),
);

describe("OpenTimestamps trees", () => {
  it("read and written back byte for byte", () => {
    const bytes = Uint8Array.from([
      0xf0,
      ...varbytes([9]),
      0x08,
      0xff,
      ...pending("https://a.example"),
      0x08,
      ...bitcoin(5),
    ]);
    expect(serializeTimestamp(parseTimestamp(bytes))).toEqual(bytes);
  });

  it("merges calendars' answers sharing an operation into one, keeping both attestations", () => {
    const merged = mergeTimestamps(answerA, answerB);
    expect(merged).toHaveLength(1);
    expect(attestationsOf(merged, root).map((a) => a.kind === "pending" && a.uri)).toEqual([
      "https://a.example",
      "https://b.example",
    ]);
    // One sha256 item, not two: python-opentimestamps keeps one timestamp per operation.
    expect(attestationsOf(parseTimestamp(serializeTimestamp(merged)), root)).toHaveLength(2);
  });

  it("grafts an upgrade at the commitment it answers for", () => {
    const commitment = sha256(root);
    const upgraded = graft(
      answerA,
      root,
      commitment,
      parseTimestamp(Uint8Array.from([0x08, ...bitcoin(800000)])),
    );
    expect(attestationsOf(upgraded, root)).toEqual([
      { kind: "pending", uri: "https://a.example", commitment },
      { kind: "bitcoin", height: 800000, commitment: sha256(commitment) },
    ]);
  });
});

describe("a stamp's .ots file", () => {
  const hash = "ab".repeat(32);
  const stamp = (extra: string) =>
    ({ document: { algorithm: "sha256", hash }, note: extra }) as unknown as StampDocument;
  const place = { leafIndex: 0, treeSize: 1, auditPath: [] };
  const tail: OtsTimestamp = answerA;

  it("reads back as written: SHA-256 file digest and the timestamp", () => {
    const file = otsFile(Buffer.from(hash, "hex"), stampTimestamp(stamp("x"), place, tail));
    const { fileDigest, timestamp } = readOtsFile(file);
    expect(Buffer.from(fileDigest).toString("hex")).toBe(hash);
    expect(attestationsOf(timestamp, fileDigest)).toHaveLength(1);
  });

  it("is refused for a stamp document longer than OpenTimestamps operations take (0x00 + text: 4096 bytes)", () => {
    const longest = 4096 - 1 - jcs(stamp("")).length;
    expect(() => stampTimestamp(stamp("x".repeat(longest)), place, tail)).not.toThrow();
    expect(() => stampTimestamp(stamp("x".repeat(longest + 1)), place, tail)).toThrow(RangeError);
  });

  it("is refused when the stamp spells its hash in uppercase (hexlify writes lowercase)", () => {
    const upper = { document: { algorithm: "sha256", hash: hash.toUpperCase() } } as unknown as StampDocument;
    expect(() => stampTimestamp(upper, place, tail)).toThrow(/lowercase/);
  });
});
