// Starts Prism (@stoplight/prism-cli) on specs/openapi.yaml as a mock server or as a validating
// proxy in front of a real server, and waits until it listens. Used by `npm run mock` and by the
// contract tests (test/contract/), which start their own instance on a free port.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const specPath = join(root, "specs/openapi.yaml");
const READY = /Prism is listening on/;
const STARTUP_TIMEOUT_MS = 60_000;

export interface PrismOptions {
  /** `mock` answers from the spec's examples; `proxy` forwards to `upstream` and validates both ways. */
  mode: "mock" | "proxy";
  /** The server a proxy forwards to, e.g. http://127.0.0.1:8080. */
  upstream?: string;
  /** Default: a free port. */
  port?: number;
}

export interface RunningPrism {
  url: string;
  port: number;
  /** Everything Prism printed so far (its log names every validation violation). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts Prism with `--errors`, so that a request or response that breaks the contract is answered
 * with an error instead of passing silently, and resolves once it accepts connections.
 */
export async function startPrism(options: PrismOptions): Promise<RunningPrism> {
  const port = options.port ?? (await freePort());
  const child = spawn(process.execPath, [prismBin(), ...prismArgs(options, port)], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  await waitUntilReady(child, () => output);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    output: () => output,
    stop: () => stop(child),
  };
}

/** A TCP port that is free right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

function prismBin(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve("@stoplight/prism-cli/package.json");
  return join(dirname(pkg), (require(pkg) as { bin: { prism: string } }).bin.prism);
}

function prismArgs(options: PrismOptions, port: number): string[] {
  const target = options.mode === "proxy" ? [requireUpstream(options.upstream)] : [];
  return [options.mode, specPath, ...target, "--host", "127.0.0.1", "--port", String(port), "--errors"];
}

function requireUpstream(upstream: string | undefined): string {
  if (!upstream) throw new Error("prism proxy needs an upstream URL");
  return upstream;
}

function waitUntilReady(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`Prism did not start within ${STARTUP_TIMEOUT_MS} ms`)),
      STARTUP_TIMEOUT_MS,
    );
    const onData = () => {
      if (!READY.test(output())) return;
      cleanup();
      resolve();
    };
    const onExit = (code: number | null) => fail(new Error(`Prism exited with ${code}:\n${output()}`));
    function fail(err: Error) {
      cleanup();
      child.kill();
      reject(err);
    }
    function cleanup() {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
    }
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}
