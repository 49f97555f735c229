// One profiled run of stampd under a REST load, for the CPU and allocation budgets by stage
// (bench/stages.ts). stampd starts as the benchmarks start it (stampd-process.ts) with V8's
// inspector on a loopback port; after a warm-up, the load sends a fixed number of requests while the
// CPU profiler runs, then as many again while the heap is sampled, so each profile covers exactly
// the requests it is divided by, and neither profiler's overhead lands in the other's window.
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { loadavg } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { autocannon, type Load } from "./autocannon.js";
import { cpuSeconds } from "./cpu-seconds.js";
import { root, stop, tempDir } from "./processes.js";
import {
  bytesByStage,
  type CpuProfile,
  cpuByStage,
  type HeapNode,
  type StageTotals,
} from "./stage-profile.js";
import { createStamp, startStampdProcess } from "./stampd-process.js";

export const SCENARIOS = ["rest-create", "rest-get"] as const;
export type Scenario = (typeof SCENARIOS)[number];

export interface StageRunOptions {
  /** Root of the checkout whose server runs (default: this one). */
  tree?: string;
  requests: number;
  warmup: number;
  connections: number;
  /** Profiler sampling interval, µs. */
  intervalUs: number;
  /** A folder to keep the profiles in (.cpuprofile and .heapprofile, for Chrome DevTools). */
  keepProfile?: string;
}

export interface StageRun {
  scenario: Scenario;
  tree: string;
  requests: number;
  loadAverage: number;
  /** µs of the main thread's samples by stage over the profiled requests (idle included). */
  sampledUs: StageTotals;
  /** CPU of the main thread (/proc/<pid>/task/<pid>/stat) over the same requests. */
  mainCpuUs: number;
  /** CPU of the whole process, every thread (/proc/<pid>/stat), over the same requests. */
  processCpuUs: number;
  /** Bytes allocated on the V8 heap by stage over the sampled requests (sampled estimate). */
  allocatedBytes: StageTotals;
}

// One sample per 16 KiB allocated on average: a few thousand samples per run, and cheap enough.
const HEAP_SAMPLING_BYTES = 16 * 1024;

export async function stageRun(scenario: Scenario, options: StageRunOptions): Promise<StageRun> {
  const dir = tempDir();
  const port = await freePort();
  const tree = options.tree ?? root;
  const stampd = await startStampdProcess(
    join(dir.path, "stampd"),
    { NODE_OPTIONS: `--inspect=127.0.0.1:${port}` },
    tree,
  );
  const inspector = await Inspector.open(port);
  try {
    const base = `http://127.0.0.1:${stampd.ready.http}`;
    const load = { ...(await loadOf(scenario, base, dir.path)), connections: options.connections };
    const send = async (amount: number) => {
      const run = await autocannon({ ...load, amount });
      if (run.non2xx + run.errors > 0)
        throw new Error(`${scenario}: ${run.non2xx + run.errors} requests failed`);
    };
    await send(options.warmup);
    const [loadAverage = 0] = loadavg();

    await inspector.call("Profiler.enable");
    await inspector.call("Profiler.setSamplingInterval", { interval: options.intervalUs });
    const cpuBefore = [cpuSeconds(stampd.pid), mainThreadCpuSeconds(stampd.pid)] as const;
    await inspector.call("Profiler.start");
    await send(options.requests);
    const { profile } = await inspector.call<{ profile: CpuProfile }>("Profiler.stop");
    const processCpuUs = (cpuSeconds(stampd.pid) - cpuBefore[0]) * 1e6;
    const mainCpuUs = (mainThreadCpuSeconds(stampd.pid) - cpuBefore[1]) * 1e6;
    keep(options.keepProfile, `${scenario}-${Date.now()}.cpuprofile`, profile);
    const sampledUs = cpuByStage(profile);

    await inspector.call("HeapProfiler.enable");
    await inspector.call("HeapProfiler.startSampling", {
      samplingInterval: HEAP_SAMPLING_BYTES,
      // Count what the young generation collects too: most of a request's allocations die there.
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    await send(options.requests);
    const { profile: heap } = await inspector.call<{ profile: { head: HeapNode } }>(
      "HeapProfiler.stopSampling",
    );
    keep(options.keepProfile, `${scenario}-${Date.now()}.heapprofile`, heap);
    const allocatedBytes = bytesByStage(heap.head);

    return {
      scenario,
      tree,
      requests: options.requests,
      loadAverage,
      sampledUs,
      mainCpuUs,
      processCpuUs,
      allocatedBytes,
    };
  } finally {
    inspector.close();
    await stop(stampd.process);
    dir.cleanup();
  }
}

/**
 * CPU seconds of a process's main thread (its task of the same id), user and system: a sample
 * counts wall time, descheduled time included, so the budget shares out this figure instead.
 */
function mainThreadCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // USER_HZ, as in cpu-seconds.ts
}

function keep(folder: string | undefined, name: string, profile: unknown): void {
  if (folder) writeFileSync(join(folder, name), JSON.stringify(profile));
}

/** The request of each scenario, as the benchmark of the same name sends it. */
async function loadOf(scenario: Scenario, base: string, folder: string): Promise<Omit<Load, "connections">> {
  if (scenario === "rest-get") return { url: `${base}${await createStamp(base)}` };
  const bodyFile = join(folder, "body.txt");
  writeFileSync(bodyFile, multipartBody());
  return {
    url: `${base}/stamps`,
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    bodyFile,
  };
}

const BOUNDARY = "stampd-bench-boundary";

/** rest-create's body: one form with one 1 KiB file part. */
function multipartBody(): string {
  const content = "stampd benchmark document. ".repeat(64).slice(0, 1024);
  return (
    `--${BOUNDARY}\r\n` +
    'Content-Disposition: form-data; name="file"; filename="document.txt"\r\n' +
    `Content-Type: text/plain\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`
  );
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once("error", reject);
  });
}

/** A minimal Chrome DevTools protocol client on the inspector's WebSocket. */
class Inspector {
  private next = 1;
  private pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  private constructor(private socket: WebSocket) {
    socket.on("message", (data) => {
      const message = JSON.parse(String(data)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
      };
      const waiting = message.id === undefined ? undefined : this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id!);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
    });
  }

  static async open(port: number): Promise<Inspector> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
      webSocketDebuggerUrl: string;
    }[];
    if (!target) throw new Error(`no inspector target on port ${port}`);
    const socket = new WebSocket(target.webSocketDebuggerUrl, { maxPayload: 1 << 30 });
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    return new Inspector(socket);
  }

  call<T = unknown>(method: string, params: object = {}): Promise<T> {
    const id = this.next++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
    });
  }

  close(): void {
    this.socket.close();
  }
}
