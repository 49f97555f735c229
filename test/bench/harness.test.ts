// The benchmark harness works end to end: `npm run bench -- rest-get` at the shortest durations
// starts stampd and its baseline in processes of their own, loads both with autocannon and writes a
// result with raw numbers, the ratio, the target and its verdict. Speed itself is never asserted.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const results = mkdtempSync(join(tmpdir(), "stampd-bench-results-"));
afterAll(() => rmSync(results, { recursive: true, force: true }));

describe("npm run bench", () => {
  it("runs one benchmark and writes its result with the target's verdict", { timeout: 90_000 }, () => {
    const run = spawnSync(process.execPath, ["--import", "tsx", "bench/run.ts", "rest-get"], {
      cwd: root,
      env: { ...process.env, BENCH_SCALE: "0.01", BENCH_ROUNDS: "1", BENCH_RESULTS_DIR: results },
      encoding: "utf8",
    });
    expect(run.stderr).not.toMatch(/failed/);
    expect(run.status).toBe(0);
    const result = JSON.parse(readFileSync(join(results, "rest-get.json"), "utf8"));
    expect(result.rows.map((r: { server: string }) => r.server)).toEqual(["stampd", "bare express"]);
    for (const row of result.rows) expect(row["req/s best"]).toBeGreaterThan(0);
    expect(result.targets).toHaveLength(1);
    const [target] = result.targets;
    expect(target.target).toBe("≥ 0.6 × bare express 5 (fixed JSON)");
    expect(target.value).toBeGreaterThan(0);
    expect(typeof target.met).toBe("boolean");
    expect(target.met).toBe(target.value >= 0.6);
    expect(run.stdout).toContain("## summary");
  });
});
