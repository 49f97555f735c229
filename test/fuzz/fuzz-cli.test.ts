import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

// `npm run fuzz -- --help` threw ERR_PARSE_ARGS_UNKNOWN_OPTION with a stack trace (issue #35 item 7).
const root = fileURLToPath(new URL("../../", import.meta.url));
const fuzz = (...args: string[]) =>
  promisify(execFile)(process.execPath, ["--import", "tsx", "scripts/fuzz.ts", ...args], { cwd: root });

it("prints its usage for --help and exits 0, without starting a service", async () => {
  const { stdout, stderr } = await fuzz("--help");
  expect(stdout).toMatch(/^usage: npm run fuzz -- \[--seed <n>\]/);
  expect(stdout).toContain("--rest <n>");
  expect(stderr).toBe("");
});

it("answers an unknown option with the usage and exit code 2", async () => {
  const failure = await fuzz("--bogus").then(
    () => expect.fail("an unknown option was accepted"),
    (err: { code: number; stderr: string }) => err,
  );
  expect(failure.code).toBe(2);
  expect(failure.stderr).toMatch(/Unknown option '--bogus'[\s\S]*usage: npm run fuzz/);
});
