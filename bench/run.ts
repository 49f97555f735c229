// npm run bench [-- <name> ...]: runs the benchmarks of bench/lib/suite.ts one at a time, each in
// its own process so one benchmark's heap and sockets never skew the next. Each writes
// bench/results/<name>.json; at the end a summary of every target is printed, and a run of the
// whole suite rewrites the table in bench/README.md (`npm run bench:table` does that alone).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { resultsDir } from "./lib/results.js";
import { suite } from "./lib/suite.js";
import { type SuiteRun, summaryRows, writeReadmeTable } from "./lib/summary.js";

const dir = fileURLToPath(new URL(".", import.meta.url));
const wanted = process.argv.slice(2);
const unknown = wanted.filter((n) => !(suite as readonly string[]).includes(n));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${suite.join(", ")}`);
  process.exit(2);
}
const names = wanted.length ? wanted : [...suite];
const seconds: Record<string, number> = {};
const failed: string[] = [];
const started = performance.now();
for (const name of names) {
  console.log(`\n## ${name}`);
  const t = performance.now();
  const run = spawnSync(process.execPath, ["--import", "tsx", `${dir}${name}.bench.ts`], {
    stdio: "inherit",
  });
  seconds[name] = Math.round((performance.now() - t) / 1000);
  if (run.status !== 0) failed.push(name);
}
const total = Math.round((performance.now() - started) / 1000);

console.log(`\n## summary (${total} s)`);
console.table(summaryRows(names));
if (!wanted.length && !failed.length) {
  const record: SuiteRun = { at: new Date().toISOString(), seconds, total };
  writeFileSync(`${resultsDir()}/suite.json`, `${JSON.stringify(record, null, 2)}\n`);
  if (!process.env.BENCH_RESULTS_DIR) writeReadmeTable(suite, record);
}
if (failed.length) console.error(`failed: ${failed.join(", ")}`);
process.exit(failed.length ? 1 : 0);
