import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerProcess } from "../helpers/server-process.js";
import { runStampd, SPAWNS_TIMEOUT } from "./run-stampd.js";

/**
 * The README's "A first stamp, with curl", run as written against a real server with its default
 * batching (issue #36, verdicts that agree): the offline verdict of the saved proof bundle reaches
 * the default threshold the README promises, and the offline check of a bare stamp document says
 * what it could not check instead of "not met".
 */
const run = promisify(execFile);
let dir: string;
let server: ServerProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "stampd-readme-"));
  server = await ServerProcess.start({ DATA_DIR: join(dir, "data") });
}, 90_000);
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("README: a first stamp, with curl", { timeout: SPAWNS_TIMEOUT }, () => {
  it("the proof bundle verifies offline with the score the README promises", async () => {
    const document = join(dir, "contract.pdf");
    writeFileSync(document, `a contract ${Date.now()}`);
    const created = await run("curl", ["-s", "-F", `file=@${document}`, `${server.baseUrl}/stamps`]);
    const stamp = JSON.parse(created.stdout) as {
      stamp_id: string;
      stamp_json: { service_public_key: string };
    };
    const checked = await run("curl", [
      "-s",
      "-F",
      `file=@${document}`,
      `${server.baseUrl}/stamps/${stamp.stamp_id}/verify`,
    ]);
    expect(checked.stdout).toContain('"content_hash":"match"');
    const stampFile = join(dir, "stamp.json");
    writeFileSync(stampFile, created.stdout);
    const env = { STAMPD_URL: server.baseUrl };

    // The stamp document alone: valid, and the score is said to be unknowable offline, not "not met".
    const bare = await runStampd(
      ["verify", stampFile, document, "--trust", stamp.stamp_json.service_public_key],
      { env },
    );
    expect(bare.code, bare.err).toBe(0);
    expect(bare.out).toContain("not checked offline");
    expect(bare.out).not.toMatch(/\(not met\)/);

    // "Within a second the stamp is sealed into a signed batch and logged."
    const bundle = join(dir, "contract.pdf.stampd.json");
    let saved = await runStampd(["get", stamp.stamp_id, "--out", bundle], { env });
    for (let i = 0; i < 20 && !saved.out.includes("confirmed"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      saved = await runStampd(["get", stamp.stamp_id, "--out", bundle], { env });
    }
    expect(saved.code, saved.err).toBe(0);
    expect(saved.out).toContain(`saved        ${bundle}`);
    const verified = await runStampd(
      ["verify", bundle, document, "--trust", stamp.stamp_json.service_public_key],
      {
        env,
      },
    );
    expect(verified.code, `${verified.out}\n${verified.err}`).toBe(0);
    expect(verified.out).toMatch(/trust score\s+[5-9]\d* of 5 required \(met\)/);
  });
});
