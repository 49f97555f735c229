import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** Runs `stampd <args>` (bin/stampd.js) with only `env` (plus PATH and HOME); its stdout. */
export async function stampdCli(env: Record<string, string>, ...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ["bin/stampd.js", ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", LOG_LEVEL: "silent", ...env },
    timeout: 120_000,
  });
  return stdout;
}
