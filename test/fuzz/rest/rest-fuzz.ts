import { Agent } from "node:http";
import { SpecModel } from "../../../cli/conformance/spec-model.js";
import type { OperationId } from "../../../server/contract/openapi.js";
import type { RunningService } from "../../helpers/service.js";
import { Rng } from "../random.js";
import { count, type FuzzFailure, type SurfaceReport } from "../report.js";
import { SchemaValues } from "../schema-values.js";
import { checkResponse } from "./check.js";
import { Classifier } from "./classify.js";
import { fuzzContention } from "./contention.js";
import { makeFixtures } from "./fixtures.js";
import { mutations } from "./mutations.js";
import { probeRateLimits } from "./rate-limit-probes.js";
import { describeRequest, type FuzzRequest, type RequestParts } from "./request.js";
import { type GenContext, validParts } from "./valid-parts.js";
import { send, toWire } from "./wire.js";

export interface RestFuzzOptions {
  seed: number;
  count: number;
  /** Requests in flight at once. */
  concurrency?: number;
  /** Only these operations (default: every operation of the spec). */
  operations?: OperationId[];
}

/** Share of requests left valid; the rest get one mutation. */
const VALID_SHARE = 0.35;

/**
 * Fuzzes every REST operation of specs/openapi.yaml on a running service: `count` requests, each
 * a valid request drawn from the schemas and, most of the time, spoiled by one mutation; every
 * answer checked against the spec. Then bursts of parallel writes to one vault (contention.ts),
 * and a few anonymous floods check that 429s are documented.
 */
export async function fuzzRest(svc: RunningService, options: RestFuzzOptions): Promise<SurfaceReport> {
  const model = new SpecModel();
  const components = (model.spec.components as { schemas: Record<string, unknown> }).schemas;
  const ctx: GenContext = { model, values: new SchemaValues(components), fixtures: await makeFixtures(svc) };
  const limits = {
    maxJsonBytes: svc.config.MAX_JSON_BYTES,
    maxFingerprintJsonBytes: svc.config.MAX_FINGERPRINT_JSON_BYTES,
  };
  const classifier = new Classifier(model, limits, { logSize: ctx.fixtures.logSize });
  const ops = model.operations.filter(
    (o) => !options.operations || options.operations.includes(o.operationId),
  );
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency ?? 4 });
  const report: SurfaceReport = { surface: "rest", requests: 0, failures: [], outcomes: {} };

  const make = (index: number): FuzzRequest => {
    const rng = Rng.forItem(options.seed, index);
    const op = rng.pick(ops);
    const parts = validParts(ctx, op, rng);
    const applicable = mutations.filter((m) => m.applies(op, parts));
    const mutation = rng.chance(VALID_SHARE) || applicable.length === 0 ? undefined : rng.pick(applicable);
    mutation?.apply(parts, rng, op);
    return written(index, op.operationId, parts, mutation?.name ?? "valid");
  };
  const written = (
    index: number,
    operationId: OperationId,
    parts: RequestParts,
    mutation: string,
  ): FuzzRequest => {
    const op = model.operation(operationId);
    const wire = toWire(op, parts);
    const verdict = classifier.classify(op, parts, wire.body);
    return {
      index,
      operationId,
      method: op.method,
      url: wire.url,
      headers: wire.headers,
      body: wire.body,
      mutation,
      verdict,
    };
  };

  let next = 0;
  const worker = async () => {
    while (next < options.count) {
      const req = make(next++);
      await run(req);
    }
  };
  const run = async (req: FuzzRequest) => {
    const op = model.operation(req.operationId);
    report.requests++;
    try {
      const res = await send(svc.baseUrl, agent, req.method, req);
      count(report.outcomes, `${req.verdict.kind}:${res.status}`);
      const problems = checkResponse(op, req, res);
      if (problems.length > 0) report.failures.push(failure(req, problems));
    } catch (err) {
      count(report.outcomes, `${req.verdict.kind}:no-answer`);
      report.failures.push(failure(req, [`no answer: ${(err as Error).message}`]));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  const bursts = await fuzzContention(svc.baseUrl, model, ctx.fixtures, Rng.forItem(options.seed, -1));
  report.requests += bursts.statuses.length;
  for (const status of bursts.statuses) count(report.outcomes, `burst:${status}`);
  report.failures.push(...bursts.failures);
  const probes = await probeRateLimits(svc.baseUrl, agent, model, options.seed);
  report.requests += probes.requests;
  report.failures.push(...probes.failures);
  agent.destroy();
  return report;
}

function failure(req: FuzzRequest, problems: string[]): FuzzFailure {
  const verdict =
    req.verdict.kind === "invalid"
      ? ` (invalid: ${req.verdict.reasons.join("; ")})`
      : ` (${req.verdict.kind})`;
  return {
    surface: "rest",
    index: req.index,
    target: req.operationId,
    mutation: `${req.mutation}${verdict}`,
    request: describeRequest(req),
    problems,
  };
}
