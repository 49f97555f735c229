import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
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
