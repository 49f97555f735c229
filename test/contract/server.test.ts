import { afterAll, beforeAll } from "vitest";
import type { RunningService } from "../helpers/service.js";
import { implemented, pendingCases } from "./implemented.js";
import { realTarget, startContractServer } from "./real-target.js";
import { type ContractTarget, contractSuite } from "./suite.js";

// The contract suite against the real server: the operations in implemented.ts for real, every
// other one must still answer 501.
let svc: RunningService | undefined;
let target: ContractTarget;

beforeAll(async () => {
  const started = await startContractServer();
  svc = started.svc;
  target = realTarget({ baseUrl: svc.baseUrl, ...started.accounts });
});
afterAll(() => svc?.close());

contractSuite({ mode: "real", implemented, pending: pendingCases }, () => target);
