import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ServiceError } from "../../server/errors.js";
import { compareFingerprints } from "../../server/fingerprints/compare.js";
import { FINE_SHADOW_LIMIT } from "../../server/fingerprints/fine-shadows.js";
import type { FingerprintDocument } from "../../server/fingerprints/types.js";
import { fingerprint, METHODS } from "./corpus.js";

// Short documents (docs/fingerprint.md, "Short documents"): a small edit stays "Similar" or better,
// a rewrite is "Different", whatever the decomposition method.
const revisions = new URL("./golden/revisions/", import.meta.url);
const text = (s: string) => new TextEncoder().encode(s);
const compare = (x: Uint8Array, y: Uint8Array, method: (typeof METHODS)[number]) =>
  compareFingerprints(fingerprint(x, method), fingerprint(y, method));

const CONTRACT =
  "This Agreement is made between Alpha Ltd (the Buyer) and Beta LLC (the Seller). 1. The Seller " +
  "shall deliver the goods by 1 March 2024. 2. The Buyer shall pay EUR 10,000 within 30 days of " +
  "delivery. 3. Either party may terminate this Agreement on 60 days written notice. 4. This " +
  "Agreement is governed by the laws of Ireland.";
/** Same parties, same clauses, other words: what a rewrite of the contract looks like. */
const CONTRACT_REWRITTEN =
  "Beta LLC, as seller, agrees to supply goods to Alpha Ltd, the purchaser. Delivery is due on the " +
  "first of March 2024; payment of ten thousand euros follows within a month. Each side can end " +
  "the contract with two months' notice in writing. Irish law applies to any dispute arising under it.";
/** The ISC licence as the cliui package ships it (731 bytes; golden/revisions/README.md). */
const ISC = readFileSync(new URL("cliui-8.0.1.LICENSE.txt", revisions), "utf8");
/** The MIT licence as ajv ships it: the same permissions, granted in other words. */
const MIT = readFileSync(new URL("ajv-8.20.0.LICENSE", revisions), "utf8");

const smallEdits: [string, string, string][] = [
  [
    "a contract (322 bytes) with a new date and payment term",
    CONTRACT,
    CONTRACT.replace("1 March 2024", "15 April 2024").replace("30 days", "45 days"),
  ],
  [
    "a contract (322 bytes) with one clause reworded",
    CONTRACT,
    CONTRACT.replace("on 60 days written notice", "by giving 90 days notice in writing"),
  ],
  [
    "the ISC licence (731 bytes) with another copyright line",
    ISC,
    ISC.replace("2015, Contributors", "2024, Jane Roe"),
  ],
  [
    "the ISC licence with a sentence added",
    ISC,
    ISC.replace("appear in all copies.", "appear in all copies. Attribution is appreciated."),
  ],
  [
    "a 60-byte note with one word changed",
    "Meet at the north gate at noon on Friday; bring the keys.",
    "Meet at the south gate at noon on Friday; bring the keys.",
  ],
];

const rewrites: [string, string, string][] = [
  ["the contract and its rewording", CONTRACT, CONTRACT_REWRITTEN],
  ["the ISC and MIT licences", ISC, MIT],
  ["the contract and the ISC licence", CONTRACT, ISC],
];

describe.each(METHODS)("short texts, %s", (method) => {
  it.each(smallEdits)("%s: 'Similar' or better", (_, before, after) => {
    const result = compare(text(before), text(after), method);
    expect(result.overall_similarity).toBeGreaterThanOrEqual(0.7);
    expect(result.assessment).toMatch(/^(Very similar|Similar) - /);
  });

  it.each(rewrites)("%s: 'Different'", (_, a, b) => {
    const result = compare(text(a), text(b), method);
    expect(result.overall_similarity).toBeLessThan(0.5);
    expect(result.assessment).toBe("Different - distinct structure");
  });
});

/** Real prose to cut short texts from: the GNU licences of the fixtures. */
const prose = ["GFDL-1.3", "LGPL-2.1"].map((name) =>
  gunzipSync(readFileSync(new URL(`${name}.txt.gz`, revisions)))
    .toString("latin1")
    .replace(/\s+/g, " "),
);

describe("any short text up to 1 KiB", () => {
  const passage = fc
    .record({ doc: fc.nat(1), at: fc.nat(20_000), size: fc.integer({ min: 64, max: 1024 }) })
    .map(({ doc, at, size }) => prose[doc]!.slice(at, at + size));

  it("one word replaced: 'Similar' or better, for every method", () => {
    fc.assert(
      fc.property(passage, fc.nat(), fc.constantFrom(...METHODS), (base, pick, method) => {
        const words = base.split(" ");
        fc.pre(words.length > 6);
        const i = 1 + (pick % (words.length - 2));
        const edited = [...words.slice(0, i), "altered", ...words.slice(i + 1)].join(" ");
        fc.pre(edited !== base);
        expect(compare(text(base), text(edited), method).overall_similarity).toBeGreaterThanOrEqual(0.7);
      }),
      { numRuns: 80 },
    );
  });

  it("two passages of the same size from other places: 'Different'", () => {
    fc.assert(
      fc.property(passage, fc.nat(20_000), fc.constantFrom(...METHODS), (base, at, method) => {
        const other = prose[1]!.slice(at, at + base.length);
        fc.pre(other.length === base.length && Math.abs(prose[1]!.indexOf(base) - at) > 2 * base.length);
        expect(compare(text(base), text(other), method).overall_similarity).toBeLessThan(0.5);
      }),
      { numRuns: 80 },
    );
  });
});

describe("fine shadows", () => {
  it("are carried below FINE_SHADOW_LIMIT only, finest first, from 128 to 255 pieces' worth", () => {
    const sizes: [number, number[]][] = [
      [1, [1, 2, 4, 8, 16, 32]],
      [255, [1, 2, 4, 8, 16, 32]],
      [256, [2, 4, 8, 16, 32]],
      [322, [2, 4, 8, 16, 32]],
      [1024, [8, 16, 32]],
      [FINE_SHADOW_LIMIT - 1, [32]],
    ];
    for (const [size, pieceBytes] of sizes) {
      const doc = fingerprint(text(prose[0]!.slice(0, size)), "hierarchical");
      expect(
        doc.fine_shadows?.map((f) => f.piece_bytes),
        `${size} bytes`,
      ).toEqual(pieceBytes);
    }
    expect("fine_shadows" in fingerprint(text(prose[0]!.slice(0, FINE_SHADOW_LIMIT)), "flat")).toBe(false);
    expect("fine_shadows" in fingerprint(new Uint8Array(0), "flat")).toBe(false);
  });

  it("let texts on either side of a power of two compare at the piece size both carry", () => {
    const base = prose[0]!.slice(1000, 1000 + 510);
    const longer = `${base.slice(0, 200)}and a few words more ${base.slice(200)}`;
    expect(base.length < 512 && longer.length > 512).toBe(true);
    expect(compare(text(base), text(longer), "hierarchical").overall_similarity).toBeGreaterThanOrEqual(0.7);
  });

  it("fingerprints made before fine shadows existed compare by `shadows`, the same on both sides", () => {
    const before = fingerprint(text(CONTRACT), "semantic");
    const after = fingerprint(text(CONTRACT.replace("Ireland", "Malta")), "semantic");
    const { fine_shadows: _, ...old } = before;
    const { fine_shadows: __, ...oldAfter } = after;
    const mixed = compareFingerprints(old, after);
    expect(mixed).toEqual(compareFingerprints(old, oldAfter));
    expect(compareFingerprints(old, structuredClone(old)).overall_similarity).toBe(1);
    expect(compareFingerprints(before, after).overall_similarity).toBeGreaterThan(mixed.overall_similarity);
  });

  it("that do not add up answer 400 naming fine_shadows", () => {
    const doc = fingerprint(text(ISC), "content_addressed");
    const broken: [string, (d: FingerprintDocument) => void][] = [
      [
        "a changed value",
        (d) => {
          d.fine_shadows![0]!.shadows[1]!.values[0]! += 1;
        },
      ],
      ["piece sizes out of order", (d) => void d.fine_shadows!.reverse()],
      ["a missing scale", (d) => void d.fine_shadows![1]!.shadows.pop()],
    ];
    for (const [what, breakIt] of broken) {
      const bad = structuredClone(doc);
      breakIt(bad);
      let error: unknown;
      try {
        compareFingerprints(doc, bad);
      } catch (err) {
        error = err;
      }
      expect(error, what).toBeInstanceOf(ServiceError);
      expect((error as ServiceError).fieldErrors?.[0]?.path, what).toBe("/body/fingerprint2/fine_shadows");
    }
  });
});
