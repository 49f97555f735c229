// Servers, baselines and load generators each run in a node process of their own, so none shares
// an event loop with another. An entry point announces that it is ready with one stdout line
// `ready <json>` (its ports, say); everything else it prints goes to this process's stderr.
import { type ChildProcess, fork, spawn } from "node:child_process";
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
  /** The entry is JavaScript built by scripts/build-server.mjs, run by plain node (no tsx loader). */
  compiled?: boolean;
}

const running = new Set<ChildProcess>();
const folders = new Set<string>();
// A benchmark that fails halfway, or is interrupted, must not leave servers or a 1 GiB file behind.
process.on("exit", () => {
  for (const child of running) child.kill("SIGKILL");
  for (const path of folders) rmSync(path, { recursive: true, force: true });
});
process.once("SIGINT", () => process.exit(130));

/** Starts an entry point (a path relative to the repository) and waits for its ready line. */
export async function start<Ready>(entry: string, options: StartOptions = {}): Promise<Started<Ready>> {
  const loader = options.compiled ? [] : ["--import", "tsx"];
  const child = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), ...loader, join(root, entry), ...(options.args ?? [])],
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
  const child = fork(join(root, entry), [], { cwd: root, execArgv: [...nodeFlags, "--import", "tsx"] });
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
