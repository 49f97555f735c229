import { expect } from "vitest";
import { formatReport, type SurfaceReport } from "./report.js";

/**
 * The seed of the bounded runs in the test suite: FUZZ_SEED to replay one, else new each run (so
 * CI keeps exploring); the seed is in every failure message.
 */
export const testSeed = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : Math.floor(Math.random() * 2 ** 31);

/** Fails with the formatted failures (seed, request, problems) when the run found any. */
export function expectNoFailures(report: SurfaceReport): void {
  const text = formatReport(testSeed, report, "npm run fuzz --").join("\n");
  expect(report.failures, text).toEqual([]);
}
