// npm run bench [-- <name> ...]: runs bench/<name>.bench.ts one at a time, each in its own process
// so one benchmark's heap and sockets never skew the next. Each writes bench/results/<name>.json.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dir = fileURLToPath(new URL(".", import.meta.url));
const all = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .map((f) => f.slice(0, -".bench.ts".length))
  .sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((n) => !all.includes(n));
if (unknown.length) {
  console.error(`unknown benchmark(s): ${unknown.join(", ")}; available: ${all.join(", ")}`);
  process.exit(2);
}
let failed = 0;
for (const name of wanted.length ? wanted : all) {
  console.log(`\n## ${name}`);
  const run = spawnSync(process.execPath, ["--import", "tsx", `${dir}${name}.bench.ts`], {
    stdio: "inherit",
  });
  if (run.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
