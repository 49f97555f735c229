import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import { createLogger } from "../../server/logger.js";
import { devIssuer } from "../../server/vault/fees/dev-issuer.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { implemented, pendingCases } from "./implemented.js";
import { realTarget } from "./real-target.js";
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
  // Batches every 50 ms, so the proof operations find a confirmed stamp quickly.
  svc = await startService({ MAX_UPLOAD_BYTES: String(1024 * 1024), BATCH_INTERVAL_MS: "50" });
  prism = await startPrism({ mode: "proxy", upstream: svc.baseUrl });
  const [owner, other] = [
    await issueKey(svc, { tier: "internal" }),
    await issueKey(svc, { tier: "internal" }),
  ];
  const issuer = devIssuer(svc.dataDir, createLogger(svc.config));
  target = realTarget({
    baseUrl: prism.url,
    ownerKey: owner.key,
    otherKey: other.key,
    issuer,
    fetch: recordingFetch,
  });
});
afterAll(async () => {
  await prism?.stop();
  await svc?.close();
});

contractSuite({ mode: "real", implemented, pending: pendingCases, validRequestsOnly: true }, () => target);

it("Prism found no contract violation in any request or response, and mocked nothing", () => {
  // "✖" marks a request Prism refused; "Remocking" an answer it made up because upstream said 501.
  const flagged = prism!
    .output()
    .split("\n")
    .filter((line) => line.includes("✖") || line.includes("Remocking"));
  expect({ violations, flagged }).toEqual({ violations: [], flagged: [] });
});
