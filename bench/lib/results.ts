import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Row, Target } from "./report.js";

/** Where results go: bench/results, or BENCH_RESULTS_DIR (the smoke test keeps real results intact). */
export function resultsDir(): string {
  return process.env.BENCH_RESULTS_DIR || fileURLToPath(new URL("../results", import.meta.url));
}

export interface Result {
  name: string;
  at: string;
  machine: { node: string; cpu: string; cores: number; loadAverage: number[] };
  rows: Row[];
  targets: Target[];
}

/** The latest result of a benchmark, or undefined when it has not run here. */
export function readResult(name: string): Result | undefined {
  const file = `${resultsDir()}/${name}.json`;
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Result) : undefined;
}
