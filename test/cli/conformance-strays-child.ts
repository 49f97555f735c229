// Runs two conformance checks in a process of its own (vitest would take the first check's stray
// rejection for its own failure): the first leaves a promise that rejects after it returned.
import { runChecks } from "../../cli/conformance/run.js";
import { SpecModel } from "../../cli/conformance/spec-model.js";
import { Traffic } from "../../cli/conformance/traffic.js";

const traffic = new Traffic({
  model: new SpecModel(),
  basePath: "",
  rate: 100,
  write: false,
  keyNames: new Map(),
});
const results = await runChecks(
  [
    {
      area: "grpc",
      name: "leaves a stray rejection",
      run: async () => {
        void Promise.reject(new Error("RESOURCE_EXHAUSTED while the check looked elsewhere"));
        await new Promise((resolve) => setTimeout(resolve, 50));
      },
    },
    { area: "grpc", name: "runs after it", run: async () => {} },
  ],
  traffic,
);
console.log(JSON.stringify(results.map((r) => ({ name: r.name, outcome: r.outcome }))));
