import { Agent } from "node:http";
import type { SpecModel } from "../../../cli/conformance/spec-model.js";
import type { OperationId } from "../../../server/contract/openapi.js";
import type { Rng } from "../random.js";
import type { FuzzFailure } from "../report.js";
import { checkResponse } from "./check.js";
import { BURST, type FuzzFixtures } from "./fixtures.js";
import { describeRequest, type FuzzRequest } from "./request.js";
import { send, toWire } from "./wire.js";

interface Planned {
  operationId: OperationId;
  id?: string;
  body: unknown;
}

/**
 * Concurrency on one resource: bursts of valid requests on one vault sent all at once — heartbeats
 * with distinct receipts, batch heartbeats naming the same vaults in different orders, retrieves
 * with distinct proofs. Each answer is checked like any other: a 5xx (a write that gave up on a
 * busy vault) is a failure, as are refusals the spec does not document.
 */
export async function fuzzContention(
  baseUrl: string,
  model: SpecModel,
  fixtures: FuzzFixtures,
  rng: Rng,
): Promise<{ statuses: number[]; failures: FuzzFailure[] }> {
  const receipts = [...fixtures.burst.receipts];
  const active = fixtures.vaultIds.slice(0, 3);
  const target = rng.pick(active);
  const bursts: Planned[][] = [
    Array.from({ length: BURST }, () => ({
      operationId: "heartbeatVault",
      id: target,
      body: { fee_receipt: receipts.pop() },
    })),
    Array.from({ length: BURST }, (_, i) => ({
      operationId: "batchHeartbeat",
      body: { vault_ids: i % 2 ? [...active].reverse() : active, fee_receipt: receipts.pop() },
    })),
    fixtures.burst.proofs.map((proof) => ({
      operationId: "retrieveVaultKey",
      id: fixtures.burst.releasedId,
      body: proof,
    })),
  ];
  // A socket per request, so a burst really is in flight at once.
  const agent = new Agent({ keepAlive: true, maxSockets: BURST });
  const failures: FuzzFailure[] = [];
  const statuses: number[] = [];
  for (const [b, burst] of bursts.entries()) {
    const sent = burst.map((planned, i) => written(model, fixtures, planned, -1000 - b * BURST - i, rng));
    const answers = await Promise.all(sent.map((req) => send(baseUrl, agent, req.method, req)));
    for (const [i, res] of answers.entries()) {
      const req = sent[i]!;
      statuses.push(res.status);
      const problems = checkResponse(model.operation(req.operationId), req, res);
      if (problems.length > 0) failures.push(toFailure(req, problems));
    }
  }
  agent.destroy();
  return { statuses, failures };
}

function written(
  model: SpecModel,
  fixtures: FuzzFixtures,
  planned: Planned,
  index: number,
  rng: Rng,
): FuzzRequest {
  const op = model.operation(planned.operationId);
  const wire = toWire(op, {
    pathParams: planned.id ? { id: planned.id } : {},
    query: [],
    headers: {},
    auth: { kind: "owner", key: rng.pick(fixtures.ownerKeys), header: "bearer" },
    body: { kind: "json", value: planned.body },
  });
  return {
    index,
    operationId: planned.operationId,
    method: op.method,
    url: wire.url,
    headers: wire.headers,
    body: wire.body,
    mutation: "burst on one vault",
    verdict: { kind: "valid" },
  };
}

function toFailure(req: FuzzRequest, problems: string[]): FuzzFailure {
  return {
    surface: "rest",
    index: req.index,
    target: req.operationId,
    mutation: req.mutation,
    request: describeRequest(req),
    problems,
  };
}
