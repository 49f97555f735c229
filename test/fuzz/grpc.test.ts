import { afterAll, beforeAll, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";
import { expectNoFailures, testSeed } from "./fuzz-suite.js";
import { fuzzGrpc } from "./grpc/grpc-fuzz.js";

// A bounded run of `npm run fuzz` for gRPC (the full run makes 2 000 calls).
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ VALIDATE_RESPONSES: "false" });
});
afterAll(() => svc?.close());

it(`every gRPC status for 400 fuzzed calls is documented and none is INTERNAL (seed ${testSeed})`, {
  timeout: 120_000,
}, async () => {
  expectNoFailures(await fuzzGrpc(svc, { seed: testSeed, count: 400 }));
});
