// npm run bench -- grpc-bulk: sustained stamps/s through BatchStamp (1000 items a call, a few calls
// in flight) and StreamStamps (several bidirectional streams, each keeping up to 64 requests
// unanswered), against the absolute target of 50 000 stamps/s, and durability: the load
// generator (bench/lib/grpc-load.ts, a process of its own) records the id of every stamp stampd
// acknowledged; after the runs stampd is killed with SIGKILL (a crash: nothing is flushed on the
// way out) and every acknowledged id is looked up in its SQLite file.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { cpuSeconds } from "./lib/cpu-seconds.js";
import type { LoadCommand, LoadResult } from "./lib/grpc-load.js";
import { ask, forkEntry, stop, tempDir } from "./lib/processes.js";
import { count, type Row, report, round, type Target } from "./lib/report.js";
import { best, median } from "./lib/rounds.js";
import { rounds, seconds } from "./lib/settings.js";
import { startStampdProcess } from "./lib/stampd-process.js";

const TARGET = 50_000;
const scenarios = [
  { name: "BatchStamp ×1000", kind: "batch", concurrency: 4, batchSize: 1000, inFlight: "4 calls" },
  { name: "StreamStamps", kind: "stream", concurrency: 16, inFlight: "16 streams" },
] as const;

const dir = tempDir();
const database = join(dir.path, "stampd.db");
const idsFile = join(dir.path, "acknowledged.txt");
writeFileSync(idsFile, "");
const stampd = await startStampdProcess(join(dir.path, "stampd"), { DATABASE_URL: `sqlite:${database}` });
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
  const durability = checkDurability();

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
      what: `${s.name}, ${s.inFlight} in flight: stamps/s sustained`,
      target: `≥ ${count(TARGET)} stamps/s`,
      value,
      unit: "stamps/s",
      stampd: `${count(top.stamps)} stamps in ${round(top.seconds, 1)} s; ${round(cpuPer10k(top), 2)} CPU s/10k`,
      baseline: "",
      met: value >= TARGET,
    };
  });
  targets.push({
    what: "acknowledged stamps missing from the store after SIGKILL",
    target: profiling ? "0 (not a crash: SIGTERM, to write the profile)" : "0 (durable when acknowledged)",
    value: durability.missing,
    unit: "",
    stampd: `${count(durability.acknowledged)} acknowledged, ${count(durability.rows)} rows`,
    baseline: "",
    met: !profiling && durability.missing === 0 && durability.acknowledged > 0,
  });
  report("grpc-bulk", {
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
  load.send("exit");
  await stop(stampd.process);
  dir.cleanup();
}

/** Looks up every acknowledged id in the database of the killed server. */
function checkDurability() {
  const db = new Database(database);
  try {
    const stored = new Set(db.prepare("SELECT id FROM stamps").pluck().all() as string[]);
    const acknowledged = readFileSync(idsFile, "utf8").split("\n").filter(Boolean);
    const missing = acknowledged.filter((id) => !stored.has(id)).length;
    return { acknowledged: acknowledged.length, rows: stored.size, missing };
  } finally {
    db.close();
  }
}
