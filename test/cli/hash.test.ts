import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

let svc: RunningService;
let dir: string;
let file: string;
const content = "the quick brown fox\n".repeat(1000);

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-hash-"));
  file = join(dir, "fox.txt");
  writeFileSync(file, content);
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

async function hashFromApi(algorithm: string): Promise<unknown> {
  const form = new FormData();
  form.append("algorithm", algorithm);
  form.append("file", new Blob([content]), "fox.txt");
  const res = await fetch(`${svc.baseUrl}/hash`, { method: "POST", body: form });
  expect(res.status).toBe(200);
  return res.json();
}

describe("stampd hash", { timeout: SPAWNS_TIMEOUT }, () => {
  it("prints the digest and the file like sha256sum", async () => {
    const { code, out, err } = await runStampd(["hash", file, ...serverArgs(svc)]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toBe(`${createHash("sha3-256").update(content).digest("hex")}  ${file}\n`);
  });

  it.each(["sha3-256", "sha256", "blake3"])(
    "--json prints POST /hash's answer, and --local the same (%s)",
    async (algorithm) => {
      const remote = await runStampd(["hash", file, "--algorithm", algorithm, "--json", ...serverArgs(svc)]);
      expect(remote.code).toBe(0);
      expect(JSON.parse(remote.out)).toEqual(await hashFromApi(algorithm));
      const local = await runStampd([
        "hash",
        file,
        "--algorithm",
        algorithm,
        "--json",
        "--local",
        "--url",
        "http://127.0.0.1:9",
      ]);
      expect(local.code).toBe(0);
      expect(JSON.parse(local.out)).toEqual(JSON.parse(remote.out));
    },
  );

  it("refuses an unknown algorithm (exit 2) and a missing file (exit 2)", async () => {
    expect((await runStampd(["hash", file, "--algorithm", "md5", ...serverArgs(svc)])).code).toBe(2);
    const missing = await runStampd(["hash", join(dir, "nope"), ...serverArgs(svc)]);
    expect(missing).toMatchObject({
      code: 2,
      out: "",
      err: `stampd: cannot read ${join(dir, "nope")}: no such file\n`,
    });
  });
});
