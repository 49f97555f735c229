import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resultsDir } from "./results.js";

export interface Row {
  [column: string]: string | number;
}

/** One figure the issue sets a target for (or asks to report), as it appears in the summary. */
export interface Target {
  /** What is measured, e.g. "POST /stamps (1 KiB, 50 connections) req/s". */
  what: string;
  /** The goal as written in the issue, e.g. "≥ 0.5 × bare express"; "report" when none. */
  target: string;
  /** The measured figure the goal applies to: a ratio to the baseline, or an absolute value. */
  value: number;
  unit: string;
  /** Raw figures for context: stampd's and the baseline's ("" when there is none). */
  stampd: string;
  baseline: string;
  /** Whether `value` reaches the goal; null for figures that are only reported. */
  met: boolean | null;
}

export interface Report {
  /** The detailed table printed for this benchmark. */
  rows: Row[];
  targets: Target[];
  /** Anything else worth keeping: settings, every round's raw numbers. */
  [extra: string]: unknown;
}

/**
 * Prints a benchmark's tables and writes bench/results/<name>.json. Figures that matter are ratios
 * against a baseline measured in the same run; raw numbers are kept for context.
 */
export function report(name: string, result: Report): void {
  console.table(result.rows);
  console.table(result.targets.map(targetRow));
  const dir = resultsDir();
  mkdirSync(dir, { recursive: true });
  const body = { name, at: new Date().toISOString(), machine: machine(), ...result };
  writeFileSync(`${dir}/${name}.json`, `${JSON.stringify(body, null, 2)}\n`);
}

export function targetRow(t: Target): Row {
  return {
    what: t.what,
    target: t.target,
    measured: `${t.value} ${t.unit}`.trim(),
    stampd: t.stampd,
    baseline: t.baseline,
    met: verdict(t.met),
  };
}

export function verdict(met: boolean | null): string {
  return met === null ? "reported" : met ? "met" : "MISSED";
}

function machine() {
  return {
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    loadAverage: loadavg().map((l) => Number(l.toFixed(2))),
  };
}

/** A figure rounded for tables: `digits` decimals. */
export function round(x: number, digits = 3): number {
  return Number(x.toFixed(digits));
}

/** An integer with thousands separators, for the raw-figure columns. */
export function count(x: number): string {
  return Math.round(x).toLocaleString("en-US");
}
