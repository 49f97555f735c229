import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../", import.meta.url));
const run = promisify(execFile);

/**
 * Runs the real server process (`server/main.ts`) with only `env` (plus PATH and HOME) until it
 * exits, for starts that must fail: its exit code and what it wrote to stderr, line by line. A
 * start that succeeds is killed after 60 s and fails the caller's expectations on its code.
 */
export async function startUntilExit(
  env: Record<string, string>,
): Promise<{ code: number; lines: string[] }> {
  const outcome = await run(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      HOST: "127.0.0.1",
      PORT: "0",
      GRPC_PORT: "0",
      LOG_LEVEL: "silent",
      ...env,
    },
    timeout: 60_000,
  }).then(
    () => ({ code: 0, stderr: "" }),
    (err: { code: number; stderr: string }) => ({ code: err.code, stderr: err.stderr }),
  );
  return { code: outcome.code, lines: outcome.stderr.trimEnd().split("\n") };
}
