// npm run bench -- ws-fanout: how long one event takes to reach 1k and 10k WebSocket subscribers
// of stampd (all_stamps), against a bare `ws` server broadcasting the same payload with a plain loop
// over its clients, in the same run; and the server memory each idle connection costs. The clients
// live in another process (bench/lib/ws-clients.ts), so server and clients do not share a core.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import v8 from "node:v8";
import vm from "node:vm";
import { WebSocketServer } from "ws";
import { build, type Service } from "../server/build.js";
import { loadConfig } from "../server/config.js";
import type { DomainEvent } from "../server/events/bus.js";
import { listen, shutdownGracefully } from "../server/lifecycle.js";
import { report } from "./lib/report.js";

const SIZES = [1000, 10_000];
// Targets take turns in blocks (order flipped each block), so load drifting on the machine hits both.
const BLOCKS = 3;
const WARMUP = 5;
const ROUNDS = 20;

v8.setFlagsFromString("--expose-gc");
const gc = vm.runInNewContext("gc") as () => void;

interface Target {
  name: "stampd" | "bare ws";
  url: string;
  subscribe: boolean;
  /** Sends one event to every client; returns when the server has handed it to every socket. */
  broadcast(i: number): void;
}

const dataDir = mkdtempSync(join(tmpdir(), "stampd-bench-"));
const service = await startStampd();
const bare = new WebSocketServer({ host: "127.0.0.1", port: 0 });
await new Promise((resolve) => bare.once("listening", resolve));

const targets: Target[] = [
  {
    name: "stampd",
    url: `ws://127.0.0.1:${(service.http.address() as AddressInfo).port}/ws`,
    subscribe: true,
    broadcast: (i) => service.ctx.events.publish(stampCreated(i)),
  },
  {
    name: "bare ws",
    url: `ws://127.0.0.1:${(bare.address() as AddressInfo).port}`,
    subscribe: false,
    broadcast: (i) => {
      const e = stampCreated(i);
      const payload = JSON.stringify({ type: e.type, timestamp: new Date().toISOString(), data: e.data });
      for (const client of bare.clients) client.send(payload);
    },
  },
];

try {
  const rows = [];
  const memory = [];
  for (const size of SIZES) {
    const results = new Map<string, Measured>();
    for (let block = 0; block < BLOCKS; block++) {
      for (const target of block % 2 ? [...targets].reverse() : targets) {
        const m = await measure(target, size);
        const first = results.get(target.name);
        // Rounds add up over the blocks; memory is the first block's (a fresh heap for the first size).
        if (!first) results.set(target.name, m);
        else {
          first.latencies.push(...m.latencies);
          first.sends.push(...m.sends);
        }
      }
    }
    const ours = summary(results.get("stampd")!);
    const base = summary(results.get("bare ws")!);
    rows.push({
      subscribers: size,
      "stampd p50 ms": ours.latency.p50,
      "bare p50 ms": base.latency.p50,
      "p50 ratio": ratio(ours.latency.p50, base.latency.p50),
      "stampd p95 ms": ours.latency.p95,
      "bare p95 ms": base.latency.p95,
      "stampd send ms": ours.send.p50,
      "bare send ms": base.send.p50,
      "send ratio": ratio(ours.send.p50, base.send.p50),
    });
    for (const [name, m] of results) memory.push({ server: name, connections: size, ...m.memory });
  }
  console.table(memory);
  report("ws-fanout", rows, {
    note:
      "p50/p95: from publish to the last client's receipt (clients in another process). send: time the " +
      "server spends handing one event to every socket (synchronous part). Ratios are stampd / bare ws.",
    roundsPerTarget: BLOCKS * ROUNDS,
    memoryPerIdleConnection: memory,
  });
} finally {
  await shutdownGracefully(service, 1000);
  bare.close();
  rmSync(dataDir, { recursive: true, force: true });
}

interface Measured {
  /** Milliseconds from publish to the last client's receipt, per round. */
  latencies: number[];
  /** Milliseconds the server spent handing the event to every socket, per round. */
  sends: number[];
  /** V8 heap plus buffers outside it; RSS moves with the allocator's arenas and says little per connection. */
  memory: { "heap+external bytes/conn": number };
}

function summary(m: Measured) {
  return {
    latency: { p50: percentile(m.latencies, 50), p95: percentile(m.latencies, 95) },
    send: { p50: percentile(m.sends, 50) },
  };
}

async function measure(target: Target, size: number): Promise<Measured> {
  gc();
  const before = process.memoryUsage();
  const clients = fork(new URL("./lib/ws-clients.ts", import.meta.url), [], {
    execArgv: ["--import", "tsx"],
  });
  clients.send({ cmd: "connect", url: target.url, count: size, subscribe: target.subscribe });
  await nextMessage(clients);
  gc();
  const after = process.memoryUsage();
  const latencies: number[] = [];
  const sends: number[] = [];
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    const done = nextMessage(clients) as Promise<{ at: number }>;
    const start = performance.timeOrigin + performance.now();
    target.broadcast(i);
    const sent = performance.timeOrigin + performance.now();
    const { at } = await done;
    if (i < WARMUP) continue;
    latencies.push(at - start);
    sends.push(sent - start);
  }
  clients.send({ cmd: "close" });
  await new Promise((resolve) => clients.once("exit", resolve));
  await settle(target);
  return {
    latencies,
    sends,
    memory: {
      "heap+external bytes/conn": Math.round(
        (after.heapUsed + after.external - before.heapUsed - before.external) / size,
      ),
    },
  };
}

/** Waits until the server has noticed every client leaving, so the next measurement starts clean. */
async function settle(target: Target): Promise<void> {
  const open = () => (target.name === "stampd" ? service.ws.stats().connections : bare.clients.size);
  while (open() > 0) await new Promise((resolve) => setTimeout(resolve, 50));
}

function nextMessage(child: ChildProcess): Promise<unknown> {
  return new Promise((resolve) => child.once("message", resolve));
}

function stampCreated(i: number): DomainEvent<"stamp_created"> {
  const id = `stp_01JD3M6ZK8Q2V7W9X4Y5Z${String(i).padStart(5, "0")}`;
  return {
    type: "stamp_created",
    data: {
      id,
      contentHash: `sha256:${"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}`,
      timestamp: new Date().toISOString(),
      metadata: { filename: "report.pdf" },
    },
    scope: { accountId: null, stampId: id },
  };
}

async function startStampd(): Promise<Service> {
  const config = loadConfig({
    NODE_ENV: "development",
    LOG_LEVEL: "silent",
    HOST: "127.0.0.1",
    PORT: "0",
    DATA_DIR: dataDir,
    // 10k connections from one address would exhaust any tier; the limiter is not what is measured.
    RATE_LIMIT_ENABLED: "false",
  });
  const svc = await build(config);
  await listen(svc.http, 0, "127.0.0.1");
  return svc;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const value = sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return Number(value.toFixed(3));
}

function ratio(a: number, b: number): number {
  return Number((a / b).toFixed(2));
}
