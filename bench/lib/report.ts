import { mkdirSync, writeFileSync } from "node:fs";

export interface Row {
  [column: string]: string | number;
}

/**
 * Prints a benchmark's table and writes bench/results/<name>.json. Figures that matter are ratios
 * against a baseline measured in the same run; raw numbers are kept for context.
 */
export function report(name: string, rows: Row[], extra: Record<string, unknown> = {}): void {
  console.table(rows);
  const dir = new URL("../results/", import.meta.url);
  mkdirSync(dir, { recursive: true });
  const body = { name, at: new Date().toISOString(), node: process.version, rows, ...extra };
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify(body, null, 2)}\n`);
}
