#!/usr/bin/env node
// Prints the one plain line CI reads, from vitest's JSON report of the real run:
// "tests: N passed, N failed" (", N skipped" when any were skipped).
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "test-results/vitest.json";
let report;
try {
  report = JSON.parse(readFileSync(file, "utf8"));
} catch (err) {
  console.log(`tests: 0 passed, 1 failed`);
  console.error(`no test report at ${file}: ${err.message}`);
  process.exit(1);
}
const passed = report.numPassedTests ?? 0;
// A file that failed to load ran no test: it counts as one failure, so it cannot pass unseen.
const brokenFiles = (report.testResults ?? []).filter(
  (f) => f.status === "failed" && (f.assertionResults ?? []).length === 0,
).length;
const failed = (report.numFailedTests ?? 0) + brokenFiles;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
