import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Schemas } from "../../sdk/src/index.js";
import { type RunningService, startService } from "../helpers/service.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

let svc: RunningService;
let dir: string;
const path = (name: string) => join(dir, name);
const report = (topic: string) =>
  Array.from({ length: 40 }, (_, i) => `# Section ${i}\n\nNotes on ${topic}, paragraph ${i}.\n`).join("\n");

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-fp-"));
  writeFileSync(path("report.md"), report("apples"));
  writeFileSync(path("draft.md"), report("apples").replace("paragraph 7", "paragraph seven"));
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

const sdk = () => createClient({ baseUrl: svc.baseUrl });

describe("stampd fingerprint", { timeout: SPAWNS_TIMEOUT }, () => {
  it("prints a summary, and with --json the API's FingerprintResponse", async () => {
    const human = await runStampd(["fingerprint", path("report.md"), ...serverArgs(svc)]);
    expect(human.code).toBe(0);
    expect(human.out).toMatch(/^standard hash\s+sha3-256:/);
    expect(human.out).toMatch(/method\s+hierarchical/);
    const json = await runStampd([
      "fingerprint",
      path("report.md"),
      "--method",
      "flat",
      "--json",
      ...serverArgs(svc),
    ]);
    expect(json.code).toBe(0);
    const expected = await sdk().fingerprints.create({ file: path("report.md"), method: "flat" });
    expect(JSON.parse(json.out)).toEqual(expected);
  });
});

describe("stampd compare", { timeout: SPAWNS_TIMEOUT }, () => {
  it("compares two files: the API's CompareResponse for their fingerprints", async () => {
    const run = await runStampd([
      "compare",
      path("report.md"),
      path("draft.md"),
      "--json",
      ...serverArgs(svc),
    ]);
    expect(run.code).toBe(0);
    const [a, b] = await Promise.all(
      ["report.md", "draft.md"].map((name) => sdk().fingerprints.create({ file: path(name) })),
    );
    const expected = await sdk().fingerprints.compare({
      fingerprint1: a!.fingerprint_json,
      fingerprint2: b!.fingerprint_json,
    });
    expect(JSON.parse(run.out)).toEqual(expected);
    expect(expected.overall_similarity).toBeGreaterThan(0.5);
  });

  it("takes a fingerprint saved with `stampd fingerprint --json` in place of a file", async () => {
    const saved = await runStampd(["fingerprint", path("report.md"), "--json", ...serverArgs(svc)]);
    writeFileSync(path("report.fp.json"), saved.out);
    const bare = (JSON.parse(saved.out) as Schemas["FingerprintResponse"]).fingerprint_json;
    writeFileSync(path("bare.json"), JSON.stringify(bare));
    const run = await runStampd(["compare", path("report.fp.json"), path("bare.json"), ...serverArgs(svc)]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/overall\s+1\.0000/);
    expect(run.out).toMatch(/assessment\s+Very similar/);
  });

  it("a missing file is a usage error, exit 2", async () => {
    const run = await runStampd(["compare", path("report.md"), path("gone.md"), ...serverArgs(svc)]);
    expect(run).toMatchObject({ code: 2, out: "" });
  });
});
