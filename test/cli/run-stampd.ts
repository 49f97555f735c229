import { spawn } from "node:child_process";

const bin = new URL("../../bin/stampd.js", import.meta.url).pathname;

/**
 * A test that runs the CLI several times waits for several Node starts (about a second each on a
 * busy machine): more than vitest's default allows.
 */
export const SPAWNS_TIMEOUT = 120_000;

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

/**
 * Runs `node bin/stampd.js <args>` as a user would, without blocking the event loop (the service
 * under test runs in this process). The CLI sees none of this process's STAMPD_* variables, only
 * `env`; `input` is its standard input.
 */
export function runStampd(
  args: string[],
  opts: { env?: Record<string, string>; input?: string | Buffer } = {},
): Promise<CliRun> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith("STAMPD_")),
  );
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...inherited, LOG_LEVEL: "silent", ...opts.env },
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (err += text));
  child.stdin.end(opts.input ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

/** Options that point the CLI at a running test service. */
export function serverArgs(svc: { baseUrl: string }, key?: string): string[] {
  return ["--url", svc.baseUrl, ...(key ? ["--api-key", key] : [])];
}
