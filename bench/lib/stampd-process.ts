import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { compileEntry, root, type Started, start } from "./processes.js";
import type { StampdPorts } from "./stampd.js";

/**
 * The environment of a benchmark's stampd: loopback, ports picked by the system, its own data
 * folder, no response validation (a development aid), only errors logged.
 */
export function stampdEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    NODE_ENV: "development",
    LOG_LEVEL: "error",
    HOST: "127.0.0.1",
    PORT: "0",
    GRPC_PORT: "0",
    DATA_DIR: dataDir,
    VALIDATE_RESPONSES: "false",
    ...extra,
  };
}

/**
 * Node flags of a stampd process: with BENCH_CPU_PROF=<folder>, a V8 CPU profile is written there
 * when the process exits (not when it is killed with SIGKILL).
 */
export function stampdNodeFlags(): string[] {
  const folder = process.env.BENCH_CPU_PROF;
  return folder ? ["--cpu-prof", `--cpu-prof-dir=${folder}`] : [];
}

/**
 * Starts stampd (bench/lib/stampd-server.ts) in a process of its own, storing in `dataDir`, the way
 * `npm start` runs the server: compiled by scripts/build-server.mjs, run by plain node with the
 * environment variables and node flags of package.json's start script. `tree`: the root of another
 * checkout whose server to run instead (a worktree of an older commit, for before/after figures).
 */
export function startStampdProcess(
  dataDir: string,
  env: Record<string, string> = {},
  tree: string = root,
): Promise<Started<StampdPorts>> {
  const shipped = startCommand(tree);
  return start<StampdPorts>(relative(root, compileEntry("bench/lib/stampd-server.ts", tree)), {
    env: { ...shipped.env, ...stampdEnv(dataDir, env) },
    nodeFlags: [...shipped.nodeFlags, ...stampdNodeFlags()],
  });
}

/** `exec env VAR=value node --flag dist/server/main.js`, the last command of `npm start`, taken apart. */
function startCommand(tree: string): { env: Record<string, string>; nodeFlags: string[] } {
  const { scripts } = JSON.parse(readFileSync(join(tree, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const words = scripts.start.split("&&").at(-1)!.trim().split(/\s+/);
  const env: Record<string, string> = {};
  for (const word of words.filter((w) => /^[A-Z_]+=/.test(w))) {
    const at = word.indexOf("=");
    env[word.slice(0, at)] = word.slice(at + 1);
  }
  return { env, nodeFlags: words.filter((w) => w.startsWith("--")) };
}

/** Stamps a small document through the API of the stampd at `base`; returns the stamp's path (Location). */
export async function createStamp(base: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob(["a document to look up"]), "document.txt");
  const res = await fetch(`${base}/stamps`, { method: "POST", body: form });
  if (res.status !== 201) throw new Error(`POST /stamps answered ${res.status}: ${await res.text()}`);
  return res.headers.get("location")!;
}
