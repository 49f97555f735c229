import type { Agent } from "node:http";
import type { SpecModel } from "../../../cli/conformance/spec-model.js";
import type { OperationId } from "../../../server/contract/openapi.js";
import type { FuzzFailure } from "../report.js";
import { checkResponse } from "./check.js";
import { describeRequest, type FuzzRequest } from "./request.js";
import { send } from "./wire.js";

/** Operations of each path weight (2.0, 1.0, 0.5, 0.1) and one that needs a key (metered before the key check). */
const PROBED: [OperationId, string][] = [
  ["getStamp", "/stamps/stp_00000000000000000000000000"],
  // `/` is charged to the page budget since issue #36: /ws/stats stands for the default 1.0.
  ["getWsStats", "/ws/stats"],
  ["getExplorerStats", "/explorer/api/stats"],
  ["listPresets", "/presets"],
  ["listVaults", "/vault/list"],
];
/** Enough for the anonymous tier (burst 5) at the lightest weight. */
const MAX_REQUESTS = 80;

/**
 * Floods a few operations from one anonymous address until the limiter answers 429, and checks
 * each answer (the 429s included) against the spec: the 429 must be documented, carry
 * `Retry-After` and the limiter's body. A flood that never gets a 429 is a failure too.
 */
export async function probeRateLimits(
  baseUrl: string,
  agent: Agent,
  model: SpecModel,
  seed: number,
): Promise<{ requests: number; failures: FuzzFailure[] }> {
  const failures: FuzzFailure[] = [];
  let requests = 0;
  for (const [i, [operationId, url]] of PROBED.entries()) {
    const op = model.operation(operationId);
    const headers = { "x-forwarded-for": `203.0.113.${(seed + i) & 0xff}` };
    const req: FuzzRequest = {
      index: -1 - i,
      operationId,
      method: op.method,
      url,
      headers,
      mutation: "rate-limit flood",
      verdict: { kind: "open", reason: "flood" },
    };
    let limited = false;
    for (let n = 0; n < MAX_REQUESTS && !limited; n++) {
      requests++;
      const res = await send(baseUrl, agent, op.method, req);
      limited = res.status === 429;
      const problems = checkResponse(op, req, res);
      if (problems.length > 0) failures.push(toFailure(req, problems));
    }
    if (!limited)
      failures.push(
        toFailure(req, [`${MAX_REQUESTS} anonymous requests from one address were never refused with 429`]),
      );
  }
  return { requests, failures };
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
