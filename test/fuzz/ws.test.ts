import { afterAll, beforeAll, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";
import { expectNoFailures, testSeed } from "./fuzz-suite.js";
import { fuzzWs } from "./ws/ws-fuzz.js";

// A bounded run of `npm run fuzz` for the WebSocket API (the full run sends 3 000 frames).
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ VALIDATE_RESPONSES: "false" });
});
afterAll(() => svc?.close());

it(`every WebSocket answer to 600 fuzzed frames keeps the spec (seed ${testSeed})`, {
  timeout: 120_000,
}, async () => {
  expectNoFailures(await fuzzWs(svc, { seed: testSeed, count: 600 }));
});
