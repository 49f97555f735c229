// npm run bench:table: rewrites the table in bench/README.md from the latest bench/results/*.json.
import { existsSync, readFileSync } from "node:fs";
import { resultsDir } from "./lib/results.js";
import { suite } from "./lib/suite.js";
import { type SuiteRun, writeReadmeTable } from "./lib/summary.js";

const file = `${resultsDir()}/suite.json`;
const run = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as SuiteRun) : undefined;
writeReadmeTable(suite, run);
console.log("bench/README.md: table rewritten from", resultsDir());
