import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import type { RunningService } from "../helpers/service.js";
import { implemented, pendingCases } from "./implemented.js";
import { realTarget, startContractServer } from "./real-target.js";
import { type ContractTarget, contractSuite } from "./suite.js";

// The real-server contract run again, through `prism proxy --errors`, which validates every
// request and response against specs/openapi.yaml. Prism reports a violation in the
// `sl-violations` header and, with --errors, turns it into a problem+json answer; both are
// recorded here and must not occur. Requests that break the contract on purpose are left out, and
// so is the 501 check of operations not implemented yet: Prism mocks a 501 from upstream instead.
let svc: RunningService | undefined;
let prism: RunningPrism | undefined;
let target: ContractTarget;
const violations: string[] = [];

async function recordingFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const response = await fetch(request);
  const where = `${request.method} ${new URL(request.url).pathname} -> ${response.status}`;
  const reported = response.headers.get("sl-violations");
  if (reported) violations.push(`${where}: ${reported}`);
  if (response.headers.get("content-type")?.includes("application/problem+json")) {
    violations.push(`${where}: ${await response.clone().text()}`);
  }
  return response;
}

beforeAll(async () => {
  const started = await startContractServer();
  svc = started.svc;
  prism = await startPrism({ mode: "proxy", upstream: svc.baseUrl });
  target = realTarget({ baseUrl: prism.url, ...started.accounts, fetch: recordingFetch });
});
afterAll(async () => {
  await prism?.stop();
  await svc?.close();
});

// Prism's proxy re-encodes a binary answer as UTF-8 text, so a tile's bytes do not come through
// whole (the timestamp token's first byte, 0x30, does); the direct run checks the tile's width.
const throughPrism = {
  ...pendingCases,
  "getLogTile2 succeeds": "Prism's proxy does not pass binary bodies through unchanged",
  "getStampLogTile2 succeeds": "Prism's proxy does not pass binary bodies through unchanged",
};
contractSuite({ mode: "real", implemented, pending: throughPrism, validRequestsOnly: true }, () => target);

it("Prism found no contract violation in any request or response, and mocked nothing", () => {
  // "✖" marks a request Prism refused; "Remocking" an answer it made up because upstream said 501.
  const flagged = prism!
    .output()
    .split("\n")
    .filter((line) => line.includes("✖") || line.includes("Remocking"));
  expect({ violations, flagged }).toEqual({ violations: [], flagged: [] });
});
