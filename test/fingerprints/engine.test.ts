import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { leafHash, merkleRoot, treeHeight } from "../../core/merkle.js";
import { shadowHash, shadowProblems } from "../../core/shadows.js";
import { ServiceError } from "../../server/errors.js";
import { CDC_MAX_BYTES, CDC_MIN_BYTES } from "../../server/fingerprints/cdc-chunker.js";
import { createFingerprinter } from "../../server/fingerprints/fingerprinter.js";
import { FLAT_CHUNK_BYTES } from "../../server/fingerprints/flat-chunker.js";
import { TEXT_MAX_BYTES, TEXT_MIN_BYTES } from "../../server/fingerprints/text-chunker.js";
import type { DecompositionMethod, FingerprintDocument } from "../../server/fingerprints/types.js";
import { anyInput, fingerprint, METHODS, splitsArb, structuredText, wordText } from "./corpus.js";

const sha = (algorithm: string, bytes: Uint8Array) => createHash(algorithm).update(bytes).digest("hex");
const isBinary = (bytes: Uint8Array) => bytes.subarray(0, 8000).includes(0);

/** What every fingerprint must satisfy, whatever the method. */
function expectWellFormed(doc: FingerprintDocument, bytes: Uint8Array, method: DecompositionMethod) {
  expect(doc.format).toBe("stampd.fingerprint/v1");
  expect(doc.decomposition_method).toBe(method);
  expect(doc.size_bytes).toBe(bytes.length);
  expect(doc.standard_hash).toBe(`sha3-256:${sha("sha3-256", bytes)}`);
  expect(doc.chunk_count).toBe(doc.chunks.length);
  expect(doc.tree_depth).toBe(treeHeight(doc.chunk_count));
  let end = 0;
  for (const chunk of doc.chunks) {
    expect(chunk.offset).toBe(end);
    expect(chunk.length).toBeGreaterThan(0);
    expect(chunk.hash).toBe(sha("sha256", bytes.subarray(chunk.offset, chunk.offset + chunk.length)));
    end += chunk.length;
  }
  expect(end).toBe(bytes.length);
  const leaves = doc.chunks.map((c) => leafHash(Buffer.from(c.hash, "hex")));
  expect(doc.merkle_root).toBe(Buffer.from(merkleRoot(leaves)).toString("hex"));
  expect(doc.entropy).toBeGreaterThanOrEqual(0);
  expect(doc.entropy).toBeLessThanOrEqual(8);
  expect(doc.shadows.map((s) => s.scale)).toEqual([2, 3, 5, 7, 11, 13]);
  for (const s of doc.shadows) {
    expect(s.length).toBe(s.values.length);
    expect(s.values.length).toBeLessThanOrEqual(128);
    expect(s.hash).toBe(shadowHash(s.values));
    expect(s.values.every((v, i) => i === 0 || v > s.values[i - 1]!)).toBe(true);
  }
  expect("fine_shadows" in doc).toBe(bytes.length > 0 && bytes.length < 8192);
  expect(shadowProblems(doc)).toEqual([]);
  expect("sections" in doc).toBe(method === "hierarchical");
}

describe("every method", () => {
  it.each(METHODS)(
    "%s: chunks tile the input, hash to merkle_root, and the rest is well formed",
    (method) => {
      fc.assert(
        fc.property(anyInput, (bytes) => expectWellFormed(fingerprint(bytes, method), bytes, method)),
        { numRuns: 60 },
      );
    },
  );

  it.each(METHODS)("%s: the document does not depend on how the input is split into updates", (method) => {
    fc.assert(
      fc.property(anyInput, splitsArb, (bytes, splits) => {
        expect(fingerprint(bytes, method, splits)).toEqual(fingerprint(bytes, method));
      }),
      { numRuns: 60 },
    );
  });

  it("an empty document has no chunk, the empty tree's root, empty shadows and no existence proof", () => {
    for (const method of METHODS) {
      const doc = fingerprint(new Uint8Array(), method);
      expectWellFormed(doc, new Uint8Array(), method);
      expect(doc.merkle_root).toBe(sha("sha256", new Uint8Array()));
      expect(doc).toMatchObject({ chunk_count: 0, tree_depth: 0, entropy: 0 });
      expect(doc.shadows.every((s) => s.length === 0)).toBe(true);
    }
  });

  it("entropy is Shannon's in bits per byte, rounded to 4 decimals", () => {
    const uniform = Uint8Array.from({ length: 256 * 4 }, (_, i) => i & 255);
    expect(fingerprint(uniform, "flat").entropy).toBe(8);
    expect(fingerprint(new Uint8Array(1000).fill(65), "flat").entropy).toBe(0);
    expect(fingerprint(new TextEncoder().encode("aab"), "flat").entropy).toBe(0.9183);
  });

  it("refuses an unknown method with a 400 and a second finish", () => {
    expect(() => createFingerprinter("zigzag" as DecompositionMethod)).toThrow(ServiceError);
    const fp = createFingerprinter("flat");
    fp.finish();
    expect(() => fp.finish()).toThrow();
    expect(() => fp.update(new Uint8Array(1))).toThrow();
  });
});

describe("flat", () => {
  it("cuts every 4096 bytes", () => {
    const doc = fingerprint(new Uint8Array(3 * FLAT_CHUNK_BYTES + 5), "flat");
    expect(doc.chunks.map((c) => c.length)).toEqual([4096, 4096, 4096, 5]);
  });
});

describe("content_addressed", () => {
  it("keeps chunks between the minimum and the maximum size (the last may be shorter)", () => {
    fc.assert(
      fc.property(anyInput, (bytes) => {
        const lengths = fingerprint(bytes, "content_addressed").chunks.map((c) => c.length);
        expect(lengths.every((n) => n <= CDC_MAX_BYTES)).toBe(true);
        expect(lengths.slice(0, -1).every((n) => n >= CDC_MIN_BYTES)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("an insertion early in a document changes only the chunks near it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 0, max: 50_000 }),
        fc.nat(),
        (n, at, seed) => {
          const original = pseudoRandom(seed, 200_000);
          const inserted = pseudoRandom(seed + 1, n);
          const edited = new Uint8Array([...original.subarray(0, at), ...inserted, ...original.subarray(at)]);
          const before = fingerprint(original, "content_addressed").chunks;
          const after = new Set(fingerprint(edited, "content_addressed").chunks.map((c) => c.hash));
          const lost = before.filter((c) => !after.has(c.hash));
          // The chunk holding the insertion, and the next few until the cuts fall in step again
          // (one or two chunks mostly; 7 at most over 300 trials, never 32 KiB past the insertion).
          expect(lost.length).toBeGreaterThan(0);
          for (const chunk of lost) {
            expect(chunk.offset + chunk.length).toBeGreaterThanOrEqual(at);
            expect(chunk.offset).toBeLessThan(at + 2 * CDC_MAX_BYTES);
          }
        },
      ),
      { numRuns: 25 },
    );
  });

  it("averages about 4.6 KiB on random input", () => {
    const doc = fingerprint(pseudoRandom(7, 4 * 1024 * 1024), "content_addressed");
    const average = doc.size_bytes / doc.chunk_count;
    expect(average).toBeGreaterThan(4000);
    expect(average).toBeLessThan(5500);
  });
});

describe("semantic", () => {
  it("cuts text at the first paragraph break at least 1 KiB in", () => {
    const paragraph = (n: number) => `${"word ".repeat(n)}end.\n\n`;
    // 506 + 506 bytes are short of 1 KiB, so the first cut comes after the third paragraph.
    const text = new TextEncoder().encode(paragraph(100) + paragraph(100) + paragraph(300) + paragraph(10));
    const lengths = fingerprint(text, "semantic").chunks.map((c) => c.length);
    expect(lengths).toEqual([paragraph(100).length * 2 + paragraph(300).length, paragraph(10).length]);
  });

  it("keeps text chunks at most 16 KiB, and at least 1 KiB but for the last", () => {
    fc.assert(
      fc.property(structuredText, (bytes) => {
        fc.pre(!isBinary(bytes));
        const lengths = fingerprint(bytes, "semantic").chunks.map((c) => c.length);
        expect(lengths.every((n) => n <= TEXT_MAX_BYTES)).toBe(true);
        expect(lengths.slice(0, -1).every((n) => n >= TEXT_MIN_BYTES)).toBe(true);
      }),
      { numRuns: 80 },
    );
  });

  it("without paragraph breaks, falls back to a sentence end, else a newline, else a space", () => {
    const cutOf = (text: string) => fingerprint(new TextEncoder().encode(text), "semantic").chunks[0]!.length;
    const filler = "x".repeat(TEXT_MAX_BYTES + 100);
    const sentence = `${"a".repeat(5000)}. ${"b".repeat(6000)}\n${"c".repeat(3000)} ${filler}`;
    expect(cutOf(sentence)).toBe(5002);
    const line = `${"a".repeat(5000)}\n${"b".repeat(6000)} ${filler}`;
    expect(cutOf(line)).toBe(5001);
    expect(cutOf(`${"a".repeat(9000)} ${filler}`)).toBe(9001);
    expect(cutOf(filler)).toBe(TEXT_MAX_BYTES);
  });

  it("treats input with a NUL byte in its first 8000 bytes as binary and cuts it like content_addressed", () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 60_000 }), fc.nat(7999), (bytes, at) => {
        const binary = Uint8Array.from(bytes);
        binary[Math.min(at, binary.length - 1)] = 0;
        const chunks = (m: DecompositionMethod) => fingerprint(binary, m).chunks;
        expect(chunks("semantic")).toEqual(chunks("content_addressed"));
      }),
      { numRuns: 30 },
    );
  });
});

describe("hierarchical", () => {
  it("groups whole chunks into sections that tile the document", () => {
    fc.assert(
      fc.property(anyInput, (bytes) => {
        const doc = fingerprint(bytes, "hierarchical");
        let chunk = 0;
        let end = 0;
        for (const section of doc.sections!) {
          expect(section).toMatchObject({ offset: end, first_chunk: chunk });
          const members = doc.chunks.slice(chunk, chunk + section.chunk_count);
          expect(members.reduce((sum, c) => sum + c.length, 0)).toBe(section.length);
          chunk += section.chunk_count;
          end += section.length;
        }
        expect([chunk, end]).toEqual([doc.chunk_count, doc.size_bytes]);
      }),
      { numRuns: 60 },
    );
  });

  it("starts text sections at headings and form feeds once a section has 1 KiB", () => {
    const body = `${"Some words here. ".repeat(80)}\n\n`;
    const text = `# Title\n\n${body}## One\n\n${body}\f\n${body}####### not a heading\n\n## Two\n${body}`;
    const bytes = new TextEncoder().encode(text);
    const doc = fingerprint(bytes, "hierarchical");
    const starts = doc.sections!.map((s) => new TextDecoder().decode(bytes.subarray(s.offset, s.offset + 7)));
    expect(starts).toEqual(["# Title", "## One\n", "\f\nSome ", "## Two\n"]);
    expect(doc.tree_depth).toBeGreaterThan(1);
  });

  it("sections binary input where a chunk cut's gear hash has 16 clear top bits", () => {
    const doc = fingerprint(pseudoRandom(3, 2 * 1024 * 1024), "hierarchical");
    expect(doc.chunks).toEqual(fingerprint(pseudoRandom(3, 2 * 1024 * 1024), "content_addressed").chunks);
    expect(doc.sections!.length).toBeGreaterThan(5);
    expect(doc.sections!.length).toBeLessThan(doc.chunk_count);
  });

  it("gives a 100 KiB text a tree deeper than 1", () => {
    expect(fingerprint(wordText(1, 100 * 1024), "hierarchical").tree_depth).toBeGreaterThan(1);
  });
});

/** Reproducible bytes (SHA-256 in counter mode) without a NUL-free guarantee: binary input. */
function pseudoRandom(seed: number, size: number): Uint8Array {
  const out = new Uint8Array(size);
  for (let block = 0; block * 32 < size; block++) {
    const digest = createHash("sha256").update(`${seed}:${block}`).digest();
    out.set(digest.subarray(0, Math.min(32, size - block * 32)), block * 32);
  }
  return out;
}
