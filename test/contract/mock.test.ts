import { afterAll, beforeAll } from "vitest";
import { ExampleFixtures } from "../../cli/conformance/fixtures.js";
import type { Ctx } from "../../cli/conformance/rest-recipe.js";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import { createClient } from "../../sdk/src/index.js";
import { CONTRACT_RUN, UNKNOWN_KEY } from "./real-target.js";
import { type ContractTarget, contractSuite } from "./suite.js";

// The contract suite against Prism mocking specs/openapi.yaml: every operation's example answer
// and every documented error example, through the SDK. Prism checks only that a key is present.
let prism: RunningPrism | undefined;
let target: ContractTarget;

beforeAll(async () => {
  prism = await startPrism({ mode: "mock" });
  const make = (apiKey?: string) => createClient({ baseUrl: prism!.url, apiKey });
  const other = make(UNKNOWN_KEY);
  const ctx: Ctx = {
    mock: true,
    write: true,
    client: make(UNKNOWN_KEY),
    anonymous: make(),
    other: () => other,
    fx: new ExampleFixtures(CONTRACT_RUN),
    runId: CONTRACT_RUN,
  };
  target = { ctx, exampleCtx: ctx, badKey: make(UNKNOWN_KEY) };
});
afterAll(() => prism?.stop());

contractSuite({ mode: "mock" }, () => target);
