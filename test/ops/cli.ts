import { execFile } from "node:child_process";

const bin = new URL("../../bin/stampd.js", import.meta.url).pathname;

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `stampd <args>` as a separate process, as an operator would next to a running server, with
 * `env` on top of a clean configuration (no DATABASE_URL or key settings inherited from the shell).
 */
export function stampd(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const base = {
    ...process.env,
    DATABASE_URL: "",
    SERVICE_SIGNING_KEY_FILE: "",
    AT_REST_KEY_FILE: "",
    AT_REST_KEY: "",
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...base, LOG_LEVEL: "silent", ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
