// The grpc-bulk benchmarks (grpc-bulk.bench.ts on SQLite, grpc-bulk-postgres.bench.ts on
// PostgreSQL): sustained stamps/s through BatchStamp (1000 items a call, a few calls in flight)
// and, on SQLite, StreamStamps (several bidirectional streams, each keeping up to 64 requests
// unanswered), against an absolute target, and durability: the load generator
// (bench/lib/grpc-load.ts, a process of its own) records the id of every stamp stampd acknowledged;
// after the runs stampd is killed with SIGKILL (a crash: nothing is flushed on the way out) and
// every acknowledged id is looked up in its store.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { cpuSeconds } from "./cpu-seconds.js";
import type { LoadCommand, LoadResult } from "./grpc-load.js";
import { ask, forkEntry, stop } from "./processes.js";
import { count, type Row, report, round, type Target } from "./report.js";
import { best, median } from "./rounds.js";
import { rounds, seconds } from "./settings.js";
import { startStampdProcess } from "./stampd-process.js";
import { type Engine, inWorkspace } from "./workspace.js";

interface Scenario extends Pick<LoadCommand, "kind" | "concurrency" | "batchSize"> {
  name: string;
  inFlight: string;
}

const batch: Scenario = {
  name: "BatchStamp ×1000",
  kind: "batch",
  concurrency: 4,
  batchSize: 1000,
  inFlight: "4 calls",
};
const stream: Scenario = { name: "StreamStamps", kind: "stream", concurrency: 16, inFlight: "16 streams" };

/** Per engine: the report's name, the target (issue #13 on SQLite, #34 on PostgreSQL), the scenarios. */
const setups = {
  sqlite: { name: "grpc-bulk", target: 50_000, scenarios: [batch, stream] },
  postgres: { name: "grpc-bulk-postgres", target: 10_000, scenarios: [batch] },
} as const;

export function grpcBulk(engine: Engine): Promise<void> {
  return inWorkspace(engine, async ({ folder, schema, servers }) => {
    const { name, target, scenarios } = setups[engine];
    const on = engine === "postgres" ? " on PostgreSQL" : "";
    const database = join(folder, "stampd.db");
    const idsFile = join(folder, "acknowledged.txt");
    writeFileSync(idsFile, "");
    const stampd = await startStampdProcess(join(folder, "stampd"), {
      DATABASE_URL: schema?.url ?? `sqlite:${database}`,
    });
    servers.push(stampd);
    const load = forkEntry("bench/lib/grpc-load.ts");
    try {
      const settings = { rounds: rounds(2), seconds: seconds(6), warmupSeconds: seconds(2) };
      const url = `http://127.0.0.1:${stampd.ready.grpc}`;
      const runs: Record<string, (LoadResult & { serverCpuSeconds: number })[]> = {};
      for (const scenario of scenarios) {
        const command = (secs: number): LoadCommand => ({ url, ...scenario, seconds: secs, idsFile });
        await ask<LoadResult>(load, command(settings.warmupSeconds));
        runs[scenario.name] = [];
        for (let i = 0; i < settings.rounds; i++) {
          const cpuBefore = cpuSeconds(stampd.pid);
          const result = await ask<LoadResult>(load, command(settings.seconds));
          runs[scenario.name]!.push({ ...result, serverCpuSeconds: cpuSeconds(stampd.pid) - cpuBefore });
        }
      }
      // A profiled stampd must exit to write its profile: stopped gracefully, it is no crash test.
      const profiling = process.env.BENCH_CPU_PROF !== undefined;
      await stop(stampd.process, profiling ? "SIGTERM" : "SIGKILL");
      const stored = schema
        ? (await schema.query<{ id: string }>("SELECT id FROM stamps")).map((r) => r.id)
        : sqliteIds(database);
      const durability = checkDurability(new Set(stored), idsFile);

      const rate = (r: LoadResult) => r.stamps / r.seconds;
      const cpuPer10k = (r: { stamps: number; serverCpuSeconds: number }) =>
        (1e4 * r.serverCpuSeconds) / r.stamps;
      const rows: Row[] = scenarios.map((s) => ({
        rpc: s.name,
        "in flight": s.inFlight,
        "stamps/s best": Math.round(best(runs[s.name]!.map(rate))),
        "stamps/s median": Math.round(median(runs[s.name]!.map(rate))),
        "p50 ms": round(median(runs[s.name]!.map((r) => r.p50Ms)), 1),
        "p99 ms": round(median(runs[s.name]!.map((r) => r.p99Ms)), 1),
        "server CPU s/10k stamps (median)": round(median(runs[s.name]!.map(cpuPer10k)), 3),
        stamps: count(runs[s.name]!.reduce((n, r) => n + r.stamps, 0)),
      }));
      const targets: Target[] = scenarios.map((s) => {
        const top = runs[s.name]!.reduce((a, b) => (rate(b) > rate(a) ? b : a));
        const value = Math.round(rate(top));
        return {
          what: `${s.name}${on}, ${s.inFlight} in flight: stamps/s sustained`,
          target: `≥ ${count(target)} stamps/s`,
          value,
          unit: "stamps/s",
          stampd: `${count(top.stamps)} stamps in ${round(top.seconds, 1)} s; ${round(cpuPer10k(top), 2)} CPU s/10k`,
          baseline: "",
          met: value >= target,
        };
      });
      targets.push({
        what: `acknowledged stamps missing from the store${on} after SIGKILL`,
        target: profiling
          ? "0 (not a crash: SIGTERM, to write the profile)"
          : "0 (durable when acknowledged)",
        value: durability.missing,
        unit: "",
        stampd: `${count(durability.acknowledged)} acknowledged, ${count(durability.rows)} rows`,
        baseline: "",
        met: !profiling && durability.missing === 0 && durability.acknowledged > 0,
      });
      report(name, {
        rows,
        targets,
        note:
          "stamps/s from the first call to the last answer of the best run. Latency: per call for " +
          "BatchStamp, per stamp (request to its response) for StreamStamps. Durability counts the warm-ups too.",
        durability,
        ...settings,
        runs,
      });
    } finally {
      // A load generator that died (an UNAVAILABLE it does not catch) has no channel left: sending
      // would throw, and the schema would not be dropped.
      if (load.connected) load.send("exit");
    }
  });
}

function sqliteIds(file: string): string[] {
  const db = new Database(file);
  try {
    return db.prepare("SELECT id FROM stamps").pluck().all() as string[];
  } finally {
    db.close();
  }
}

/** Looks up every acknowledged id among the rows of the killed server's store. */
function checkDurability(stored: Set<string>, idsFile: string) {
  const acknowledged = readFileSync(idsFile, "utf8").split("\n").filter(Boolean);
  const missing = acknowledged.filter((id) => !stored.has(id)).length;
  return { acknowledged: acknowledged.length, rows: stored.size, missing };
}
