import { spawn } from "node:child_process";
import { join } from "node:path";
import { root } from "./processes.js";

export interface Load {
  url: string;
  connections: number;
  /** How long to run; or `amount`: how many requests to send, every one answered before it ends. */
  seconds?: number;
  amount?: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** A file holding the request body (sent as is with every request). */
  bodyFile?: string;
}

export interface LoadRun {
  rps: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

interface AutocannonJson {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

/** One autocannon run, in a process of its own so the load generator has its own event loop. */
export async function autocannon(load: Load): Promise<LoadRun> {
  const args = ["-j", "-n", "-c", String(load.connections)];
  if (load.amount) args.push("-a", String(load.amount));
  else args.push("-d", String(load.seconds));
  if (load.method) args.push("-m", load.method);
  for (const [name, value] of Object.entries(load.headers ?? {})) args.push("-H", `${name}=${value}`);
  if (load.bodyFile) args.push("-i", load.bodyFile);
  const child = spawn(join(root, "node_modules", ".bin", "autocannon"), [...args, load.url], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`autocannon exited with ${code}`);
  const r = JSON.parse(out) as AutocannonJson;
  return {
    rps: r.requests.average,
    requests: r.requests.total,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}
