import { autocannon, type Load, type LoadRun } from "./autocannon.js";
import { commandCpuSeconds, cpuSeconds } from "./cpu-seconds.js";
import { count, type Row, round } from "./report.js";
import { alternate, best, median } from "./rounds.js";

export interface Candidate extends Omit<Load, "seconds"> {
  /**
   * The server's process: its CPU per request over each run is recorded, a steadier measure than
   * req/s when other work shares the machine.
   */
  pid?: number;
  /** Also record the CPU of every `postgres` process of the machine per request (its other users' too). */
  postgres?: boolean;
}

/** A load run with, when the candidate names its process, the CPU it cost per request. */
export interface MeasuredRun extends LoadRun {
  cpuUsPerRequest?: number;
  postgresCpuUsPerRequest?: number;
}

export interface CompareOptions {
  rounds: number;
  seconds: number;
  warmupSeconds: number;
}

/**
 * Loads each candidate with autocannon, a warm-up first (JIT, connections, caches), then in
 * alternating rounds. A figure built on failed requests would mean nothing, so more than 1 % of
 * non-2xx answers or errors stops the benchmark.
 */
export async function compareHttp<Name extends string>(
  candidates: Record<Name, Candidate>,
  options: CompareOptions,
): Promise<Record<Name, MeasuredRun[]>> {
  const names = Object.keys(candidates) as Name[];
  for (const name of names) await checked(name, { ...candidates[name], seconds: options.warmupSeconds });
  return alternate(names, options.rounds, (name) =>
    checked(name, { ...candidates[name], seconds: options.seconds }),
  );
}

async function checked(name: string, { pid, postgres, ...load }: Candidate & Load): Promise<MeasuredRun> {
  const cpu = () => (pid === undefined ? 0 : cpuSeconds(pid));
  const pgCpu = () => (postgres ? commandCpuSeconds("postgres") : 0);
  const before = [cpu(), pgCpu()] as const;
  const run = await autocannon(load);
  const failed = run.non2xx + run.errors;
  if (failed > run.requests / 100) {
    throw new Error(`${name}: ${failed} of ${run.requests} requests failed (non-2xx or errors)`);
  }
  const perRequest = (seconds: number) => Math.round((1e6 * seconds) / run.requests);
  return {
    ...run,
    ...(pid === undefined ? {} : { cpuUsPerRequest: perRequest(cpu() - before[0]) }),
    ...(postgres ? { postgresCpuUsPerRequest: perRequest(pgCpu() - before[1]) } : {}),
  };
}

/** The detailed row of one candidate: best and median req/s, median latencies, median CPU per request. */
export function httpRow(name: string, runs: MeasuredRun[]): Row {
  const cpu = runs.flatMap((r) => (r.cpuUsPerRequest === undefined ? [] : [r.cpuUsPerRequest]));
  const pg = runs.flatMap((r) =>
    r.postgresCpuUsPerRequest === undefined ? [] : [r.postgresCpuUsPerRequest],
  );
  return {
    server: name,
    "req/s best": Math.round(best(runs.map((r) => r.rps))),
    "req/s median": Math.round(median(runs.map((r) => r.rps))),
    "p50 ms": median(runs.map((r) => r.p50Ms)),
    "p99 ms": median(runs.map((r) => r.p99Ms)),
    requests: count(runs.reduce((n, r) => n + r.requests, 0)),
    "non-2xx": runs.reduce((n, r) => n + r.non2xx, 0),
    ...(cpu.length ? { "CPU µs/req": median(cpu) } : {}),
    ...(pg.length ? { "postgres CPU µs/req": median(pg) } : {}),
  };
}

/** stampd's best req/s over the baseline's best, with both raw figures (and CPU per request, when measured). */
export function httpRatio(ours: MeasuredRun[], baseline: MeasuredRun[]) {
  const a = best(ours.map((r) => r.rps));
  const b = best(baseline.map((r) => r.rps));
  return { value: round(a / b), stampd: figures(a, ours), baseline: figures(b, baseline) };
}

function figures(rps: number, runs: MeasuredRun[]): string {
  const cpu = runs.flatMap((r) => (r.cpuUsPerRequest === undefined ? [] : [r.cpuUsPerRequest]));
  return `${count(rps)} req/s${cpu.length ? `, ${count(median(cpu))} µs CPU/req` : ""}`;
}
