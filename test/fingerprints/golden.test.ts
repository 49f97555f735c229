import { readFileSync, writeFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compareFingerprints } from "../../server/fingerprints/compare.js";
import { fingerprint } from "./corpus.js";

// Fixed inputs and their complete fingerprint documents, byte for byte: a change to any part of
// the algorithm (docs/fingerprint.md) shows up here. After a deliberate change, regenerate with
// UPDATE_GOLDEN=1 npx vitest run test/fingerprints/golden.test.ts and say why in the commit.
const dir = new URL("./golden/", import.meta.url);
const cases = [
  ["input.md", "hierarchical"],
  ["input.md", "flat"],
  ["input.md", "content_addressed"],
  ["input.md", "semantic"],
  ["input.bin", "hierarchical"],
  // Under 8 KiB: the documents carry fine_shadows.
  ["short.md", "hierarchical"],
  ["short.md", "flat"],
] as const;

describe("golden fingerprints", () => {
  it.each(cases)("%s with %s", (input, method) => {
    const doc = fingerprint(readFileSync(new URL(input, dir)), method);
    const json = `${JSON.stringify(doc, null, 2)}\n`;
    const golden = new URL(`${input}.${method}.json`, dir);
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden, json);
    expect(json).toBe(readFileSync(golden, "utf8"));
  });
});

// Successive versions of real public texts (sources in golden/revisions/README.md), compared with
// the default method: each is at least "Somewhat similar", and the comparisons are recorded.
const revisions = new URL("./revisions/", dir);
const pairs = [
  ["GFDL-1.2.txt.gz", "GFDL-1.3.txt.gz"], // a section added, one rewritten, paragraphs rewrapped
  ["LGPL-2.txt.gz", "LGPL-2.1.txt.gz"], // renamed, a preamble paragraph added, terms reworded
  ["pino-6.14.0.LICENSE", "pino-10.4.0.LICENSE"], // 1.2 KiB: the copyright paragraph rewrapped
  ["ajv-5.5.2.LICENSE", "ajv-8.20.0.LICENSE"], // 1.1 KiB: the copyright years
] as const;

function revision(name: string): Uint8Array {
  const bytes = readFileSync(new URL(name, revisions));
  return name.endsWith(".gz") ? gunzipSync(bytes) : bytes;
}

describe("golden comparisons of real revisions", () => {
  it("are at least 'Somewhat similar' with the default method, as recorded", () => {
    const results = Object.fromEntries(
      pairs.map(([a, b]) => [
        `${a} -> ${b}`,
        compareFingerprints(
          fingerprint(revision(a), "hierarchical"),
          fingerprint(revision(b), "hierarchical"),
        ),
      ]),
    );
    for (const [pair, result] of Object.entries(results)) {
      expect(result.overall_similarity, pair).toBeGreaterThanOrEqual(0.5);
    }
    const json = `${JSON.stringify(results, null, 2)}\n`;
    const golden = new URL("compare.json", revisions);
    if (process.env.UPDATE_GOLDEN === "1") writeFileSync(golden, json);
    expect(json).toBe(readFileSync(golden, "utf8"));
  });
});
