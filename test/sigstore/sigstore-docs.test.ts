import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPAWNS_TIMEOUT } from "../cli/run-stampd.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { codeBlocks, run, saidOnce, section, sigstoreDoc } from "./doc-blocks.js";

/**
 * docs/sigstore.md's "Verifying with sigstore-js" run as a stranger runs it: its shell block as
 * written (the real `npm install` from the registry, real curl) in an empty folder, its script
 * saved under the name the doc gives and run with plain `node`, and its `stampd verify` line.
 * Only the example host and stamp id are ours. test/sigstore/sigstore-verify.test.ts checks the
 * bundle itself; this checks that the doc still tells a stranger how.
 */
const heading = "Verifying with sigstore-js (what a third party runs)";
const exampleHost = "https://stampd.example.com";
const stampd = new URL("../../bin/stampd.js", import.meta.url).pathname;

const text = section(sigstoreDoc(), heading);
const [shell, ...moreShell] = codeBlocks(text, "sh");
const [script, ...moreScripts] = codeBlocks(text, "js");
const scriptFile = saidOnce(text, /\srun `node (\S+)`/);
const documentFile = saidOnce(script ?? "", /toSignedEntity\(bundle, readFileSync\("([^"]+)"\)\)/);
const verifyLine = saidOnce(text, /`(stampd verify [^`]+)`/).split(/\s+/);

const content = "a tenancy agreement a stranger checks with sigstore-js\n";
const dir = mkdtempSync(join(tmpdir(), "stampd-sigstore-docs-"));
let svc: RunningService;

beforeAll(async () => {
  expect(moreShell, "one shell block").toEqual([]);
  expect(moreScripts, "one script").toEqual([]);
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  const { stamp_id } = await createStamp(svc, content);
  await svc.service.proofs.pipeline.tick();
  const commands = shell!.replaceAll(exampleHost, svc.baseUrl).replaceAll("stp_...", stamp_id);
  // The npm registry answers in seconds (the four packages are small): a stranger's install, not
  // this repository's node_modules, is what the doc promises works.
  const setup = await run("bash", ["-e", "-o", "pipefail"], dir, commands);
  expect(setup, setup.err).toMatchObject({ code: 0 });
}, SPAWNS_TIMEOUT);
afterAll(async () => {
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `document` as the doc's document file and `code` as its script, then runs `node`. */
function runScript(document: string, code = script!) {
  writeFileSync(join(dir, documentFile), document);
  writeFileSync(join(dir, scriptFile), code);
  return run(process.execPath, [scriptFile], dir);
}

describe("docs/sigstore.md, Verifying with sigstore-js, run as written", () => {
  it("the curl lines fetch the bundle, the trusted root and the keys", async () => {
    const read = (file: string) => JSON.parse(readFileSync(join(dir, file), "utf8"));
    expect(read("stamp.sigstore.json").mediaType).toBe("application/vnd.dev.sigstore.bundle.v0.3+json");
    expect(read("trusted_root.json").tlogs).toHaveLength(1);
    expect(read("keys.json").keys.map((k: { kind: string }) => k.kind)).toContain("sigstore");
  });

  it("the curl lines stop at a stamp not confirmed yet (409) rather than save its error as the bundle", async () => {
    const { stamp_id } = await createStamp(svc, `${content}, not yet sealed`);
    const pending = mkdtempSync(join(tmpdir(), "stampd-sigstore-docs-"));
    try {
      const curls = shell!.split("\n").filter((line) => line.startsWith("curl "));
      const commands = curls.join("\n").replaceAll(exampleHost, svc.baseUrl).replaceAll("stp_...", stamp_id);
      const r = await run("bash", ["-e"], pending, commands);
      expect(r.code).toBe(22);
      expect(r.err).toContain("409");
    } finally {
      rmSync(pending, { recursive: true, force: true });
    }
  });

  it("installs the packages the doc names, at the versions it pins, from the registry", async () => {
    const pins = saidOnce(shell!, /^npm install (.+)$/m)
      .split(" ")
      .map((spec) => spec.match(/^(.+)@([\d.]+)$/)!.slice(1));
    const installed = JSON.parse((await run("npm", ["ls", "--json"], dir)).out).dependencies;
    expect(Object.keys(installed).sort()).toEqual(pins.map(([name]) => name).sort());
    for (const [name, pin] of pins) expect(installed[name!].version).toMatch(new RegExp(`^${pin}\\.`));
  });

  it(
    "the script exits 0 for the stamped document",
    async () => {
      const ok = await runScript(content);
      expect(ok, ok.err).toMatchObject({ code: 0 });
    },
    SPAWNS_TIMEOUT,
  );

  it(
    "the script exits non-zero for another document",
    async () => {
      const other = await runScript(`${content}!`);
      expect(other.code).not.toBe(0);
      expect(other.err).toMatch(/signature verification failed/);
    },
    SPAWNS_TIMEOUT,
  );

  it(
    "fails as a stranger would if the doc's script were wrong: one import name changed",
    async () => {
      const broken = script!.replace("{ bundleFromJSON }", "{ bundleFromJson }");
      expect(broken).not.toBe(script);
      const run = await runScript(content, broken.replace("bundleFromJSON(", "bundleFromJson("));
      expect(run.code).not.toBe(0);
      expect(run.err).toMatch(/Named export 'bundleFromJson' not found|export named 'bundleFromJson'/);
    },
    SPAWNS_TIMEOUT,
  );

  it(
    "its stampd verify line holds for the stamped document and not for another",
    async () => {
      expect(verifyLine.slice(0, 2)).toEqual(["stampd", "verify"]);
      writeFileSync(join(dir, documentFile), content);
      const valid = await run(process.execPath, [stampd, ...verifyLine.slice(1)], dir);
      expect(valid, valid.err).toMatchObject({ code: 0 });
      expect(valid.out).toMatch(/^valid: the Sigstore bundle holds for the document/);
      writeFileSync(join(dir, documentFile), `${content}!`);
      const invalid = await run(process.execPath, [stampd, ...verifyLine.slice(1)], dir);
      expect(invalid.code).toBe(1);
      expect(invalid.out).toMatch(/^invalid: .*signature verification failed/);
    },
    SPAWNS_TIMEOUT,
  );
});
