import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assessmentFor,
  SKETCH_SIZE,
  shadowHash,
  sketchJaccard,
  sketchSimilarity,
} from "../../core/shadows.js";
import { ServiceError } from "../../server/errors.js";
import { compareFingerprints } from "../../server/fingerprints/compare.js";
import type { FingerprintDocument } from "../../server/fingerprints/types.js";
import { anyInput, fingerprint, METHODS, wordText } from "./corpus.js";

const KIB = 1024;
const methodArb = fc.constantFrom(...METHODS);

/** The text with `span` bytes from `at` replaced by other text: one localized edit. */
function edited(text: Uint8Array, at: number, span: number, seed: number): Uint8Array {
  const copy = Uint8Array.from(text);
  copy.set(wordText(seed, span), Math.min(at, text.length - span));
  return copy;
}

describe("compare", () => {
  it("identical documents: every similarity 1 and 'Very similar'", () => {
    fc.assert(
      fc.property(anyInput, methodArb, (bytes, method) => {
        const doc = fingerprint(bytes, method);
        const result = compareFingerprints(doc, structuredClone(doc));
        expect(Object.values(result.similarities)).toEqual([1, 1, 1, 1, 1, 1]);
        expect(result.overall_similarity).toBe(1);
        expect(result.assessment).toBe("Very similar - likely same or nearly identical documents");
      }),
      { numRuns: 50 },
    );
  });

  it.each(["content_addressed", "hierarchical"] as const)(
    "%s: a localized edit of 1 KiB in a 100 KiB text stays at or above 0.9",
    (method) => {
      fc.assert(
        fc.property(fc.nat(), fc.nat(100 * KIB), fc.nat(), (seed, at, editSeed) => {
          const text = wordText(seed, 100 * KIB);
          const other = edited(text, at, KIB, editSeed ^ 0x5bd1e995);
          const result = compareFingerprints(fingerprint(text, method), fingerprint(other, method));
          expect(result.overall_similarity).toBeGreaterThanOrEqual(0.9);
        }),
        { numRuns: 40 },
      );
    },
  );

  it("two unrelated documents of the same size are 'Different' (below 0.5)", () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.integer({ min: 4 * KIB, max: 200 * KIB }),
        methodArb,
        (a, b, size, method) => {
          fc.pre(a !== b);
          const result = compareFingerprints(
            fingerprint(wordText(a, size), method),
            fingerprint(wordText(b, size), method),
          );
          expect(result.overall_similarity).toBeLessThan(0.5);
          expect(result.assessment).toBe("Different - distinct structure");
        },
      ),
      // Seeds 0 and 1 once gave the same text (a corpus bug): kept as a fixed example.
      { numRuns: 40, examples: [[0, 1, 4 * KIB, "flat"]] },
    );
  });

  it("is symmetric and deterministic", () => {
    fc.assert(
      fc.property(anyInput, anyInput, methodArb, methodArb, (x, y, mx, my) => {
        const a = fingerprint(x, mx);
        const b = fingerprint(y, my);
        const ab = compareFingerprints(a, b);
        expect(compareFingerprints(b, a)).toEqual(ab);
        expect(compareFingerprints(fingerprint(x, mx), fingerprint(y, my))).toEqual(ab);
        for (const v of [...Object.values(ab.similarities), ab.overall_similarity]) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("similarity falls as the edit grows", () => {
    const text = wordText(11, 100 * KIB);
    const doc = fingerprint(text, "hierarchical");
    const overall = (span: number) =>
      compareFingerprints(doc, fingerprint(edited(text, 30 * KIB, span, 5), "hierarchical"))
        .overall_similarity;
    const series = [KIB, 10 * KIB, 30 * KIB, 60 * KIB].map(overall);
    expect(series).toEqual([...series].sort((p, q) => q - p));
    expect(series[3]).toBeLessThan(0.5);
  });

  it("compares documents cut by different methods (shadows do not depend on the method)", () => {
    const text = wordText(3, 50 * KIB);
    const result = compareFingerprints(fingerprint(text, "flat"), fingerprint(text, "semantic"));
    expect(result.overall_similarity).toBe(1);
  });

  it("refuses shadows that are not what the engine makes, with a 400 naming them", () => {
    const doc = fingerprint(wordText(4, 20 * KIB), "flat");
    const broken: [string, (d: FingerprintDocument) => void][] = [
      [
        "a changed value",
        (d) => {
          d.shadows[2]!.values[0]! += 1;
        },
      ],
      [
        "a wrong hash",
        (d) => {
          d.shadows[0]!.hash = "0".repeat(64);
        },
      ],
      ["unsorted values", (d) => d.shadows[1]!.values.reverse()],
      [
        "a wrong length",
        (d) => {
          d.shadows[3]!.length += 1;
        },
      ],
      ["a missing scale", (d) => d.shadows.pop()],
      [
        "a wrong resolution",
        (d) => {
          d.shadows[4]!.resolution = "9.10%";
        },
      ],
    ];
    for (const [what, breakIt] of broken) {
      const bad = structuredClone(doc);
      breakIt(bad);
      const call = () => compareFingerprints(doc, bad);
      expect(call, what).toThrow(ServiceError);
      try {
        call();
      } catch (err) {
        expect((err as ServiceError).fieldErrors?.[0]?.path).toBe("/body/fingerprint2/shadows");
      }
    }
  });
});

describe("sketchJaccard and sketchSimilarity", () => {
  const sketch = (set: Set<number>) => [...set].sort((a, b) => a - b).slice(0, SKETCH_SIZE);
  const uint32Set = (max: number) =>
    fc.uniqueArray(fc.nat({ max: 2 ** 32 - 1 }), { maxLength: max }).map((a) => new Set(a));

  it("is the exact Jaccard index when both sets are smaller than a sketch", () => {
    fc.assert(
      fc.property(uint32Set(SKETCH_SIZE - 1), uint32Set(SKETCH_SIZE - 1), (a, b) => {
        const union = new Set([...a, ...b]);
        const shared = [...a].filter((x) => b.has(x)).length;
        const expected = union.size === 0 ? 1 : shared / union.size;
        expect(sketchJaccard(sketch(a), sketch(b))).toBeCloseTo(expected, 12);
      }),
    );
  });

  it("the similarity is the exact Dice coefficient when both sets are smaller than a sketch", () => {
    fc.assert(
      fc.property(uint32Set(SKETCH_SIZE - 1), uint32Set(SKETCH_SIZE - 1), (a, b) => {
        const shared = [...a].filter((x) => b.has(x)).length;
        const expected = a.size + b.size === 0 ? 1 : (2 * shared) / (a.size + b.size);
        expect(sketchSimilarity(sketch(a), sketch(b))).toBeCloseTo(expected, 12);
      }),
      // Half of each set shared: Jaccard 1/3, Dice 1/2.
      { examples: [[new Set([1, 2, 3, 4]), new Set([3, 4, 5, 6])]] },
    );
  });

  it("estimates the Jaccard index of large sets from their bottom-128 sketches", () => {
    // Sets of 5000 pseudo-random values sharing 3000: Jaccard = 3000 / 7000.
    const values = Array.from({ length: 7000 }, (_, i) => Number.parseInt(shadowHash([i]).slice(0, 8), 16));
    const a = new Set(values.slice(0, 5000));
    const b = new Set(values.slice(2000));
    expect(sketchJaccard(sketch(a), sketch(b))).toBeCloseTo(3 / 7, 1);
    expect(sketchSimilarity(sketch(a), sketch(b))).toBeCloseTo(6 / 10, 1);
  });

  it("a small (complete) sketch against a full one does not overstate the similarity", () => {
    const full = Array.from({ length: SKETCH_SIZE }, (_, i) => i * 10);
    expect(sketchJaccard(full.slice(0, 10), full)).toBeCloseTo(10 / SKETCH_SIZE, 12);
  });
});

describe("assessment", () => {
  it.each([
    [1, "Very similar - likely same or nearly identical documents"],
    [0.9, "Very similar - likely same or nearly identical documents"],
    [0.8999, "Similar - significant shared structure"],
    [0.7, "Similar - significant shared structure"],
    [0.6999, "Somewhat similar - some structural overlap"],
    [0.5, "Somewhat similar - some structural overlap"],
    [0.4999, "Different - distinct structure"],
    [0, "Different - distinct structure"],
  ])("%f -> %s", (overall, text) => {
    expect(assessmentFor(overall)).toBe(text);
  });
});
