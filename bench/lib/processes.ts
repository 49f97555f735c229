// Servers, baselines and load generators each run in a node process of their own, so none shares
// an event loop with another. An entry point announces that it is ready with one stdout line
// `ready <json>` (its ports, say); everything else it prints goes to this process's stderr.
//
// Every one runs as stampd runs (`npm start`): compiled by scripts/build-server.mjs (esbuild, our
// modules bundled, dependencies from node_modules) and started by plain node. Under tsx's loader
// the same obvious SQLite server answered 13–18 % fewer requests (issue #34: 1,060 vs 1,257 and
// 1,344 vs 1,515 req/s), which flattered every ratio against a baseline: the loader's hooks run on
// a thread of their own and every module keeps an inline source map.
import { type ChildProcess, execFileSync, fork, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("../..", import.meta.url));

export interface Started<Ready> {
  process: ChildProcess;
  pid: number;
  ready: Ready;
}

export interface StartOptions {
  args?: string[];
  env?: Record<string, string>;
  /** Open an IPC channel (process.send in the child). */
  ipc?: boolean;
  /** Extra node flags, e.g. --expose-gc. */
  nodeFlags?: string[];
}

const running = new Set<ChildProcess>();
const folders = new Set<string>();
// A benchmark that fails halfway, or is interrupted, must not leave servers or a 1 GiB file behind.
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});
process.once("SIGINT", () => process.exit(130));

/**
 * Starts an entry point (a path relative to the repository: TypeScript, compiled first, or
 * JavaScript already compiled) and waits for its ready line.
 */
export async function start<Ready>(entry: string, options: StartOptions = {}): Promise<Started<Ready>> {
  const child = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), ...runnable(entry), ...(options.args ?? [])],
    {
      cwd: root,
      env: { ...process.env, ...options.env },
      stdio: ["ignore", "pipe", "inherit", ...(options.ipc ? (["ipc"] as const) : [])],
    },
  );
  running.add(child);
  child.once("exit", () => running.delete(child));
  const lines = createInterface({ input: child.stdout! });
  const ready = await new Promise<Ready>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${entry} exited with ${code} before ready`));
    child.once("exit", onExit);
    lines.on("line", (line) => {
      if (!line.startsWith("ready ")) return void process.stderr.write(`[${entry}] ${line}\n`);
      child.off("exit", onExit);
      resolve(JSON.parse(line.slice("ready ".length)) as Ready);
    });
  });
  return { process: child, pid: child.pid!, ready };
}

/** Forks a TypeScript entry point that talks over IPC only (a load generator); no ready line. */
export function forkEntry(entry: string, nodeFlags: string[] = []): ChildProcess {
  const args = runnable(entry);
  const child = fork(args.at(-1)!, [], { cwd: root, execArgv: [...nodeFlags, ...args.slice(0, -1)] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** Signals a child and waits for it to exit (SIGKILL: a crash, for the durability check). */
export function stop(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill(signal);
  });
}

/** Announces readiness to the parent (called in the child). */
export function announceReady(info: unknown): void {
  console.log(`ready ${JSON.stringify(info)}`);
}

/** The next IPC message of a child. */
export function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`child exited with ${code}`));
    child.once("exit", onExit);
    child.once("message", (m) => {
      child.off("exit", onExit);
      resolve(m as T);
    });
  });
}

/** Sends a command to a child over IPC and waits for its answer. */
export function ask<T>(child: ChildProcess, command: unknown): Promise<T> {
  const answer = nextMessage<T>(child);
  child.send(command as never);
  return answer;
}

/** A temporary directory for one benchmark, removed by `cleanup` or, failing that, at exit. */
export function tempDir(): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), "stampd-bench-"));
  folders.add(path);
  return {
    path,
    cleanup: () => {
      rmSync(path, { recursive: true, force: true });
      folders.delete(path);
    },
  };
}

/**
 * How the TypeScript entries a benchmark starts are run: `compiled` (the default, as stampd runs)
 * or, with BENCH_LOADER=tsx, under tsx's loader as before issue #34, to measure what the loader
 * costs (bench/README.md states both figures). stampd as stampd-process.ts starts it is always
 * compiled; ws-fanout's servers (ws-server.ts, stampd's included) follow the setting, as before.
 */
function entryLoader(): "compiled" | "tsx" {
  const wanted = process.env.BENCH_LOADER || "compiled";
  if (wanted !== "compiled" && wanted !== "tsx") {
    throw new Error(`BENCH_LOADER must be "compiled" or "tsx", got "${wanted}"`);
  }
  return wanted;
}

/** The node arguments that run `entry`: its compiled file, or the source under tsx's loader. */
function runnable(entry: string): string[] {
  if (!entry.endsWith(".ts")) return [join(root, entry)];
  if (entryLoader() === "tsx") return ["--import", "tsx", join(root, entry)];
  return [compileEntry(entry)];
}

const built = new Set<string>();

/**
 * `entry` (a .ts path relative to `tree`) compiled by that tree's own scripts/build-server.mjs,
 * once per benchmark process; returns the absolute path of the .js file under `tree`/dist.
 */
export function compileEntry(entry: string, tree: string = root): string {
  const key = `${tree}\0${entry}`;
  if (!built.has(key)) {
    execFileSync(process.execPath, [join(tree, "scripts/build-server.mjs"), entry], {
      cwd: tree,
      stdio: "inherit",
    });
    built.add(key);
  }
  return join(tree, "dist", entry.replace(/\.ts$/, ".js"));
}
