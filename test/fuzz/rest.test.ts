import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";
import { expectNoFailures, testSeed } from "./fuzz-suite.js";
import { fuzzRest } from "./rest/rest-fuzz.js";

// A bounded run of `npm run fuzz` for REST (the full run sends 10 000 requests).
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ VALIDATE_RESPONSES: "false" });
});
afterAll(() => svc?.close());

it(`every REST answer to 800 fuzzed requests keeps the spec (seed ${testSeed})`, {
  timeout: 120_000,
}, async () => {
  const report = await fuzzRest(svc, { seed: testSeed, count: 800 });
  expectNoFailures(report);
  expect(report.outcomes["valid:200"] ?? 0).toBeGreaterThan(0);
  // The bursts on one vault reached the success paths, not only refusals.
  expect(report.outcomes["burst:200"] ?? 0).toBeGreaterThan(0);
});
