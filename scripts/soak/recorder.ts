import { percentile } from "./stats.js";

/** Latencies and failures per operation, collected for one reporting interval at a time. */
export class Recorder {
  private latencies = new Map<string, number[]>();
  private failures = new Map<string, number>();
  /** The first few distinct failure messages of the whole run, for the report. */
  readonly failureSamples = new Set<string>();
  totalCalls = 0;
  totalFailures = 0;

  ok(op: string, ms: number): void {
    const list = this.latencies.get(op) ?? [];
    list.push(ms);
    this.latencies.set(op, list);
    this.totalCalls++;
  }

  fail(op: string, err: unknown): void {
    this.failures.set(op, (this.failures.get(op) ?? 0) + 1);
    this.totalCalls++;
    this.totalFailures++;
    if (this.failureSamples.size < 10) this.failureSamples.add(`${op}: ${(err as Error).message ?? err}`);
  }

  /** Times `call` as operation `op`; a failure is counted, never thrown. */
  async time(op: string, call: () => Promise<unknown>): Promise<void> {
    const started = performance.now();
    try {
      await call();
      this.ok(op, performance.now() - started);
    } catch (err) {
      this.fail(op, err);
    }
  }

  /** Runs a long-lived stream: only its failure counts (its duration is no latency). */
  async guard(op: string, call: () => Promise<unknown>): Promise<boolean> {
    try {
      await call();
      return true;
    } catch (err) {
      this.fail(op, err);
      return false;
    }
  }

  /** The interval's figures (all operations together, and per operation), then starts a new one. */
  drain(): IntervalFigures {
    const all = [...this.latencies.values()].flat();
    const byOp: IntervalFigures["byOp"] = {};
    for (const [op, list] of this.latencies) byOp[op] = { calls: list.length, ...figures(list) };
    const failed = [...this.failures.values()].reduce((a, b) => a + b, 0);
    this.latencies = new Map();
    this.failures = new Map();
    return { calls: all.length, failed, ...figures(all), byOp };
  }
}

export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export interface IntervalFigures extends Percentiles {
  calls: number;
  failed: number;
  byOp: Record<string, Percentiles & { calls: number }>;
}

function figures(ms: number[]): Percentiles {
  const round = (v: number) => Math.round(v * 10) / 10;
  return { p50: round(percentile(ms, 50)), p95: round(percentile(ms, 95)), p99: round(percentile(ms, 99)) };
}
