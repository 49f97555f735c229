// `stampd conformance` with authenticated keys ended with an uncaught stack trace and no report
// (issue #36): a check's background call was refused while the check awaited something else. A
// stray rejection now fails the check it came from, and the run goes on to its report.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const child = fileURLToPath(new URL("./conformance-strays-child.ts", import.meta.url));

it("a check's stray rejection fails that check; the next one runs and the process ends normally", async () => {
  const proc = spawn(process.execPath, ["--import", "tsx", child]);
  let out = "";
  let err = "";
  proc.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  proc.stderr.setEncoding("utf8").on("data", (text: string) => (err += text));
  const code = await new Promise((resolve) => proc.on("close", resolve));
  expect({ code, err }).toEqual({ code: 0, err: "" });
  expect(JSON.parse(out)).toEqual([
    {
      name: "leaves a stray rejection",
      outcome: {
        status: "failed",
        failure: {
          expected: "the call to complete",
          actual: "RESOURCE_EXHAUSTED while the check looked elsewhere",
        },
      },
    },
    { name: "runs after it", outcome: { status: "passed" } },
  ]);
}, 60_000);
