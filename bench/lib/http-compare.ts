import { autocannon, type Load, type LoadRun } from "./autocannon.js";
import { count, type Row, round } from "./report.js";
import { alternate, best, median } from "./rounds.js";

export type Candidate = Omit<Load, "seconds">;

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
): Promise<Record<Name, LoadRun[]>> {
  const names = Object.keys(candidates) as Name[];
  for (const name of names) await checked(name, { ...candidates[name], seconds: options.warmupSeconds });
  return alternate(names, options.rounds, (name) =>
    checked(name, { ...candidates[name], seconds: options.seconds }),
  );
}

async function checked(name: string, load: Load): Promise<LoadRun> {
  const run = await autocannon(load);
  const failed = run.non2xx + run.errors;
  if (failed > run.requests / 100) {
    throw new Error(`${name}: ${failed} of ${run.requests} requests failed (non-2xx or errors)`);
  }
  return run;
}

/** The detailed row of one candidate: best and median req/s, median latencies. */
export function httpRow(name: string, runs: LoadRun[]): Row {
  return {
    server: name,
    "req/s best": Math.round(best(runs.map((r) => r.rps))),
    "req/s median": Math.round(median(runs.map((r) => r.rps))),
    "p50 ms": median(runs.map((r) => r.p50Ms)),
    "p99 ms": median(runs.map((r) => r.p99Ms)),
    requests: count(runs.reduce((n, r) => n + r.requests, 0)),
    "non-2xx": runs.reduce((n, r) => n + r.non2xx, 0),
  };
}

/** stampd's best req/s over the baseline's best, with both raw figures. */
export function httpRatio(ours: LoadRun[], baseline: LoadRun[]) {
  const a = best(ours.map((r) => r.rps));
  const b = best(baseline.map((r) => r.rps));
  return { value: round(a / b), stampd: `${count(a)} req/s`, baseline: `${count(b)} req/s` };
}
