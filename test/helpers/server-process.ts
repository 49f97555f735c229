import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../", import.meta.url));

/** How a server process ended: its exit code, or the signal that killed it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A pino line of the server's log. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/**
 * The real server (`node --import tsx server/main.ts`: the module `npm start` runs compiled), in a
 * child process of its own, so it can be killed with SIGKILL and its memory read from /proc. Only the variables
 * given reach it (plus PATH and HOME): the test runner's NODE_ENV and LOG_LEVEL do not.
 */
export class ServerProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly baseUrl: string,
    readonly grpcPort: number,
    readonly wsUrl: string,
    /** Resolves when the process has ended. */
    readonly exited: Promise<Exit>,
    /** Every log line so far, parsed. */
    readonly logs: LogLine[],
  ) {}

  get pid(): number {
    return this.child.pid!;
  }

  /**
   * Starts the server on free ports of 127.0.0.1 (PORT and GRPC_PORT 0) and resolves once it logs
   * `ready` (with `untilReady: false`, once both listeners log their addresses, which they do
   * before migrations run); rejects with its stderr when it exits or is too slow first.
   */
  static async start(
    env: Record<string, string>,
    { timeoutMs = 60_000, untilReady = true } = {},
  ): Promise<ServerProcess> {
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      cwd: root,
      env: serverEnv({ HOST: "127.0.0.1", PORT: "0", GRPC_PORT: "0", ...env, LOG_LEVEL: "info" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = once(child, "exit").then(([code, signal]) => ({ code, signal }) as Exit);
    const stderr: string[] = [];
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
    const logs: LogLine[] = [];
    const ports = new Promise<{ rest: number; grpc: number }>((resolve) => {
      let rest: number | undefined;
      let grpc: number | undefined;
      createInterface({ input: child.stdout! }).on("line", (text) => {
        const line = parseLine(text);
        if (!line) return;
        logs.push(line);
        rest ??= portIn(line.msg, /^REST (?:and WebSocket )?listening on http:\/\/\S+:(\d+)/);
        grpc ??= portIn(line.msg, /^gRPC listening on [^ ]+:(\d+)/);
        if (rest === undefined || grpc === undefined) return;
        if (!untilReady || line.msg === "ready") resolve({ rest, grpc });
      });
    });
    let timer: NodeJS.Timeout | undefined;
    const failed = Promise.race([
      exited.then((exit) => `exited (${exit.code ?? exit.signal})`),
      new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`did not listen within ${timeoutMs} ms`), timeoutMs);
      }),
    ]).then((why) => {
      child.kill("SIGKILL");
      throw new Error(`server ${why}: ${stderr.join("").trim()}`);
    });
    const { rest, grpc } = await Promise.race([ports, failed]).finally(() => clearTimeout(timer));
    return new ServerProcess(
      child,
      `http://127.0.0.1:${rest}`,
      grpc,
      `ws://127.0.0.1:${rest}/ws`,
      exited,
      logs,
    );
  }

  /**
   * Polls GET `path` until it answers 200 (a listener may answer before the service is built),
   * failing after `timeoutMs`.
   */
  async untilAnswering(path = "/log", timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await fetch(`${this.baseUrl}${path}`).then(
        (res) => res.arrayBuffer().then(() => res.status),
        () => 0,
      );
      if (status === 200) return;
      if (Date.now() > deadline) throw new Error(`GET ${path} still answers ${status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Sends `signal` and waits for the process to end. */
  async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<Exit> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    return this.exited;
  }

  /** The process's resident set size in bytes (VmRSS of /proc/<pid>/status, Linux). */
  async rssBytes(): Promise<number> {
    const status = await readFile(`/proc/${this.pid}/status`, "utf8");
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    if (!kb) throw new Error(`no VmRSS in /proc/${this.pid}/status`);
    return Number(kb[1]) * 1024;
  }
}

/** Issues an API key with the CLI (`stampd keys create --json`) against the store `env` names. */
export async function createKeyWithCli(env: Record<string, string>, tier = "internal"): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    // Before the server's first start the store does not exist yet: --init creates it.
    ["bin/stampd.js", "keys", "create", "--tier", tier, "--json", "--init"],
    { cwd: root, env: serverEnv(env) },
  );
  return (JSON.parse(stdout) as { key: string }).key;
}

function serverEnv(env: Record<string, string>): Record<string, string> {
  const inherited = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" };
  return { ...inherited, NODE_ENV: "development", ...env };
}

function parseLine(text: string): LogLine | undefined {
  try {
    const line = JSON.parse(text) as LogLine;
    return typeof line.msg === "string" ? line : undefined;
  } catch {
    return undefined;
  }
}

function portIn(msg: string, pattern: RegExp): number | undefined {
  const match = pattern.exec(msg);
  return match ? Number(match[1]) : undefined;
}
