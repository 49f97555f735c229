import { afterAll, beforeAll } from "vitest";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import { createClient } from "../../sdk/src/index.js";
import { ExampleFixtures } from "./fixtures.js";
import { UNKNOWN_KEY } from "./real-target.js";
import { type ContractTarget, contractSuite } from "./suite.js";

// The contract suite against Prism mocking specs/openapi.yaml: every operation's example answer
// and every documented error example, through the SDK. Prism checks only that a key is present.
let prism: RunningPrism | undefined;
let target: ContractTarget;

beforeAll(async () => {
  prism = await startPrism({ mode: "mock" });
  const make = (apiKey?: string) => createClient({ baseUrl: prism!.url, apiKey });
  const ctx = {
    mode: "mock" as const,
    client: make(UNKNOWN_KEY),
    anonymous: make(),
    other: make(UNKNOWN_KEY),
    fx: new ExampleFixtures(),
  };
  target = { ctx, exampleCtx: ctx, badKey: make(UNKNOWN_KEY) };
});
afterAll(() => prism?.stop());

contractSuite({ mode: "mock" }, () => target);
