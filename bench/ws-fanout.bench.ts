// npm run bench -- ws-fanout: how long one event takes to reach 1k and 10k WebSocket subscribers
// of stampd (all_stamps), against a bare `ws` server broadcasting the same payload with a plain
// loop over its clients; and the server memory each idle connection costs. Each server runs in a
// process of its own (bench/lib/ws-server.ts) and the clients in another (bench/lib/ws-clients.ts),
// so neither shares a core's event loop with the other. Times are epoch milliseconds at high
// resolution (performance.timeOrigin + now()), comparable across the processes of one machine.
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { ask, forkEntry, nextMessage, type Started, start, stop, tempDir } from "./lib/processes.js";
import { type Row, report, round, type Target } from "./lib/report.js";
import { integers, positive } from "./lib/settings.js";
import { stampdEnv, stampdNodeFlags } from "./lib/stampd-process.js";

const SIZES = integers("BENCH_WS_SIZES", [1000, 10_000]);
// Both servers hold their subscribers at once and publish in turns (order flipped each round), so
// load drifting on the machine hits both alike.
const WARMUP = 5;
const ROUNDS = Math.round(positive("BENCH_WS_ROUNDS", 30));
const TARGET = 1.25;
const names = ["stampd", "bare ws"] as const;
type Name = (typeof names)[number];

interface Memory {
  heap: number;
}

interface Measured {
  /** Milliseconds from publish to the last client's receipt, per round. */
  latencies: number[];
  /** Milliseconds the server spent handing one event to every socket (its synchronous part). */
  sends: number[];
  /**
   * Server bytes per idle connection: V8 heap plus buffers outside it, after a full GC. (RSS moves
   * with the allocator's arenas and says little per connection.)
   */
  perConnection: number;
}

const dir = tempDir();
const maxConnections = String(Math.max(...SIZES) + 1000);
const env = stampdEnv(join(dir.path, "stampd"), {
  RATE_LIMIT_ENABLED: "false",
  MAX_CONNECTIONS: maxConnections,
  // Every subscriber connects from this machine, one client address.
  MAX_CONNECTIONS_PER_CLIENT: maxConnections,
});
const servers: Record<Name, Started<{ http: number }>> = {
  stampd: await start("bench/lib/ws-server.ts", {
    args: ["stampd"],
    env,
    ipc: true,
    nodeFlags: ["--expose-gc", ...stampdNodeFlags()],
  }),
  "bare ws": await start("bench/lib/ws-server.ts", { args: ["bare"], ipc: true, nodeFlags: ["--expose-gc"] }),
};

try {
  const rows: Row[] = [];
  const memory: Row[] = [];
  const targets: Target[] = [];
  for (const size of SIZES) {
    const results = await measure(size);
    const ours = results.stampd;
    const base = results["bare ws"];
    const p50 = (xs: number[]) => percentile(xs, 50);
    const ratio = round(p50(ours.latencies) / p50(base.latencies), 2);
    rows.push({
      subscribers: size,
      "stampd p50 ms": p50(ours.latencies),
      "bare p50 ms": p50(base.latencies),
      "p50 ratio": ratio,
      "stampd p95 ms": percentile(ours.latencies, 95),
      "bare p95 ms": percentile(base.latencies, 95),
      "stampd send ms": p50(ours.sends),
      "bare send ms": p50(base.sends),
    });
    targets.push({
      what: `one event to ${size.toLocaleString("en-US")} subscribers: time to the last one (p50)`,
      target: `≤ ${TARGET} × bare ws loop`,
      value: ratio,
      unit: "×",
      stampd: `${p50(ours.latencies)} ms`,
      baseline: `${p50(base.latencies)} ms`,
      met: ratio <= TARGET,
    });
    for (const name of names) {
      memory.push({
        server: name,
        connections: size,
        "heap+external B/conn": Math.round(results[name].perConnection),
      });
    }
    const idle = results.stampd.perConnection;
    targets.push({
      what: `stampd memory per idle subscribed connection (${size.toLocaleString("en-US")} open)`,
      target: "report",
      value: Math.round(idle),
      unit: "B",
      stampd: "V8 heap + external, after GC",
      baseline: `bare ws: ${Math.round(results["bare ws"].perConnection)} B`,
      met: null,
    });
  }
  console.table(memory);
  report("ws-fanout", {
    rows,
    targets,
    note:
      "p50/p95: from publish to the last client's receipt (clients in another process). send: time the " +
      "server spends handing one event to every socket (synchronous part). Ratios are stampd / bare ws.",
    roundsPerServer: ROUNDS,
    warmupRounds: WARMUP,
    memoryPerIdleConnection: memory,
  });
} finally {
  await Promise.all(names.map((n) => stop(servers[n].process)));
  dir.cleanup();
}

/** Connects `size` subscribers to each server, publishes in turns, then disconnects them. */
async function measure(size: number): Promise<Record<Name, Measured>> {
  const clients = {} as Record<Name, ChildProcess>;
  const results = {} as Record<Name, Measured>;
  for (const name of names) {
    const before = await ask<Memory>(servers[name].process, { cmd: "memory" });
    clients[name] = forkEntry("bench/lib/ws-clients.ts");
    const url = `ws://127.0.0.1:${servers[name].ready.http}${name === "stampd" ? "/ws" : ""}`;
    await ask(clients[name], { cmd: "connect", url, count: size, subscribe: name === "stampd" });
    const after = await ask<Memory>(servers[name].process, { cmd: "memory" });
    results[name] = { latencies: [], sends: [], perConnection: (after.heap - before.heap) / size };
  }
  for (let i = 0; i < WARMUP + ROUNDS; i++) {
    for (const name of i % 2 ? [...names].reverse() : names) {
      const received = nextMessage<{ at: number }>(clients[name]);
      const { start, sent } = await ask<{ start: number; sent: number }>(servers[name].process, {
        cmd: "publish",
        i,
      });
      const { at } = await received;
      if (i < WARMUP) continue;
      results[name].latencies.push(at - start);
      results[name].sends.push(sent - start);
    }
  }
  for (const name of names) {
    clients[name].send({ cmd: "close" });
    await new Promise((resolve) => clients[name].once("exit", resolve));
    await settle(servers[name].process);
  }
  return results;
}

/** Waits until the server has noticed every client leaving, so the next measurement starts clean. */
async function settle(server: ChildProcess): Promise<void> {
  while ((await ask<number>(server, { cmd: "connections" })) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!, 3);
}
