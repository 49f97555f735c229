// npm run bench -- scale-out-postgres: two stampd instances on one PostgreSQL (issue #34), as
// docs/scale-out.md deploys them: one fresh schema, one Redis (a redis-server of the benchmark's
// own, for the limiter and the events), one DATA_DIR for the keys, one SERVICE_BASE_URL. POST
// /stamps (a 1 KiB file, 50 connections per instance, one autocannon process per instance, all at
// once) on one instance alone and on both, alternating over rounds. What limits the aggregate is
// read from the CPU each party spent over each measured window: the stampd processes
// (/proc/<pid>/stat), every `postgres` process of the machine (the server's backends, WAL writer
// and checkpointer, other users' included) and the machine as a whole (/proc/stat): a machine
// near 100 % busy is bound by its cores, not by a lock or a round trip. With
// BENCH_CPU_PROF=<folder> both instances write a CPU profile there when they stop.
import { join } from "node:path";
import { PrivateRedis } from "../test/helpers/redis.js";
import { autocannon, type LoadRun } from "./lib/autocannon.js";
import { commandCpuSeconds, cpuSeconds, machineCpuSeconds } from "./lib/cpu-seconds.js";
import type { Started } from "./lib/processes.js";
import { count, type Row, report, round, type Target } from "./lib/report.js";
import { postStamps } from "./lib/rest-create.js";
import { alternate, best, median } from "./lib/rounds.js";
import { rounds, seconds } from "./lib/settings.js";
import type { StampdPorts } from "./lib/stampd.js";
import { startStampdProcess } from "./lib/stampd-process.js";
import { inWorkspace } from "./lib/workspace.js";

/** One measured window: each instance's load run and the CPU each party spent meanwhile. */
interface Window {
  runs: LoadRun[];
  rps: number;
  requests: number;
  seconds: number;
  stampdCpu: number;
  postgresCpu: number;
  machineBusy: number;
  machineTotal: number;
}

const redis = await PrivateRedis.start();
const instances: Started<StampdPorts>[] = [];

await inWorkspace("postgres", async ({ folder, env: store, servers }) => {
  const env = {
    ...store,
    REDIS_URL: redis.url,
    REDIS_PREFIX: "bench-scale-out:",
    SERVICE_BASE_URL: "http://stampd.bench.invalid",
  };
  // One after the other: the first start creates the tables and the keys the second one reads.
  const data = join(folder, "data");
  instances.push(await startStampdProcess(data, env));
  servers.push(instances[0]!);
  instances.push(await startStampdProcess(data, env));
  servers.push(instances[1]!);
  const post = postStamps(folder);
  const setups = { "one instance": instances.slice(0, 1), "two instances": instances };
  type Setup = keyof typeof setups;

  const measure = async (setup: Setup, secs: number): Promise<Window> => {
    const serving = setups[setup];
    const before = snapshot();
    const started = performance.now();
    const runs = await Promise.all(
      serving.map((s) =>
        autocannon({ ...post, url: `http://127.0.0.1:${s.ready.http}/stamps`, seconds: secs }),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    const after = snapshot();
    const failed = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
    const requests = runs.reduce((n, r) => n + r.requests, 0);
    if (failed > requests / 100) throw new Error(`${setup}: ${failed} of ${requests} requests failed`);
    return {
      runs,
      rps: runs.reduce((n, r) => n + r.rps, 0),
      requests,
      seconds: elapsed,
      stampdCpu: after.stampd - before.stampd,
      postgresCpu: after.postgres - before.postgres,
      machineBusy: after.machine.busy - before.machine.busy,
      machineTotal: after.machine.total - before.machine.total,
    };
  };
  const settings = { rounds: rounds(3), seconds: seconds(6), warmupSeconds: seconds(2) };
  const names = Object.keys(setups) as Setup[];
  for (const name of names) await measure(name, settings.warmupSeconds);
  const windows = await alternate(names, settings.rounds, (name) => measure(name, settings.seconds));

  const perRequestUs = (w: Window, cpu: number) => round((1e6 * cpu) / w.requests, 0);
  const busy = (w: Window) => round((100 * w.machineBusy) / w.machineTotal, 1);
  const rows: Row[] = names.map((name) => {
    const ws = windows[name];
    const top = ws.reduce((a, b) => (b.rps > a.rps ? b : a));
    return {
      setup: name,
      "req/s best": Math.round(top.rps),
      "req/s median": Math.round(median(ws.map((w) => w.rps))),
      "per instance (best)": top.runs.map((r) => Math.round(r.rps)).join(" + "),
      "p99 ms (best)": Math.max(...top.runs.map((r) => r.p99Ms)),
      "stampd CPU µs/req": perRequestUs(top, top.stampdCpu),
      "postgres CPU µs/req": perRequestUs(top, top.postgresCpu),
      "machine busy %": busy(top),
    };
  });
  const one = best(windows["one instance"].map((w) => w.rps));
  const two = windows["two instances"].reduce((a, b) => (b.rps > a.rps ? b : a));
  const others = two.machineBusy - two.stampdCpu - two.postgresCpu;
  const targets: Target[] = [
    {
      what: "POST /stamps on two instances, one PostgreSQL: aggregate req/s",
      target: "report",
      value: Math.round(two.rps),
      unit: "req/s",
      stampd: `${two.runs.map((r) => count(r.rps)).join(" + ")} req/s; ${round(two.rps / one, 3)} × one instance`,
      baseline: `one instance: ${count(one)} req/s`,
      met: null,
    },
    {
      what: "what limits two instances: machine CPU busy (2 cores), CPU per request by party",
      target: "report",
      value: busy(two),
      unit: "% busy",
      stampd: `stampd ${perRequestUs(two, two.stampdCpu)} µs/req, postgres ${perRequestUs(two, two.postgresCpu)} µs/req`,
      baseline: `load generators and the rest of the machine ${perRequestUs(two, others)} µs/req`,
      met: null,
    },
  ];
  report("scale-out-postgres", {
    rows,
    targets,
    note:
      "req/s: the sum over the instances of the best round; CPU per request over the same window " +
      "(postgres: every postgres process of the machine, other users' included).",
    connectionsPerInstance: post.connections,
    ...settings,
    windows,
  });
}).finally(() => redis.stop());

function snapshot() {
  return {
    stampd: instances.reduce((n, s) => n + cpuSeconds(s.pid), 0),
    postgres: commandCpuSeconds("postgres"),
    machine: machineCpuSeconds(),
  };
}
