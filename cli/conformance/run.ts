import { APIError, createClient, type StampdClient } from "../../sdk/src/index.js";
import { listOperations } from "../../server/contract/openapi.js";
import type { Signer } from "../../server/keys/ed25519.js";
import {
  type Check,
  CheckFailed,
  type CheckResult,
  type Failure,
  NotRun,
  notRunIn,
  type Outcome,
} from "./check.js";
import { ExampleFixtures, LiveFixtures } from "./fixtures.js";
import { grpcChecks } from "./grpc-checks.js";
import { rateLimitChecks } from "./rate-limit-checks.js";
import { restCases } from "./rest-cases.js";
import type { Ctx, OperationCases } from "./rest-recipe.js";
import { SpecModel } from "./spec-model.js";
import { type Exchange, Traffic } from "./traffic.js";
import { wsChecks } from "./ws-checks.js";

export interface RunOptions {
  url: string;
  grpcUrl?: string;
  /** Default: `url` with ws(s): and the path /ws. */
  wsUrl?: string;
  key: string;
  otherKey?: string;
  /** Signs fee receipts the target trusts (`--fee-issuer-key`). */
  feeIssuer?: Signer;
  write: boolean;
  mock: boolean;
  /** Requests per second at most. */
  rate: number;
  /** Seconds to wait for a stamp's batch to be sealed. */
  confirmSeconds: number;
  /** The target's MAX_UPLOAD_BYTES (`--max-upload-bytes`), for the 413 checks. */
  uploadLimit?: number;
  runId: string;
}

export interface RunReport {
  runId: string;
  target: { url: string; grpcUrl?: string; wsUrl?: string };
  write: boolean;
  mock: boolean;
  startedAt: string;
  results: CheckResult[];
}

/** A key in the right format that no server issued. */
const UNKNOWN_KEY = `svc_test_${"A".repeat(43)}`;
const MOCK = "--mock: a mock answers from the spec's examples, not from state";

/**
 * Runs every check against the target, one at a time (the request rate stays bounded and a
 * failure's traffic is its own), and reports each result through `onResult` as it comes.
 */
export async function runConformance(
  options: RunOptions,
  onResult?: (r: CheckResult) => void,
): Promise<RunReport> {
  const startedAt = new Date().toISOString();
  const base = new URL(options.url);
  const traffic = new Traffic({
    model: new SpecModel(),
    basePath: base.pathname.replace(/\/$/, ""),
    rate: options.rate,
    write: options.write,
    keyNames: new Map([
      [options.key, "owner key"],
      ...(options.otherKey ? [[options.otherKey, "other key"] as [string, string]] : []),
      [UNKNOWN_KEY, "unknown key"],
    ]),
  });
  // Retries are the kit's (traffic.ts waits out Retry-After), so each answer is seen and judged.
  const make = (apiKey?: string) =>
    createClient({ baseUrl: options.url, apiKey, fetch: traffic.fetch, maxRetries: 0 });
  const client = make(options.key);
  const other = options.otherKey ? make(options.otherKey) : undefined;
  const ctx: Ctx = {
    mock: options.mock,
    write: options.write,
    client,
    anonymous: make(),
    other: () => {
      if (!other) throw new NotRun("needs --other-key (a second account's key)");
      return other;
    },
    fx: options.mock
      ? new ExampleFixtures(options.runId)
      : new LiveFixtures(client, options.runId, options.feeIssuer, options.confirmSeconds),
    runId: options.runId,
    uploadLimit: options.uploadLimit,
  };
  const wsUrl = options.wsUrl ?? defaultWsUrl(base);
  const checks = [
    ...restChecks(ctx, make(UNKNOWN_KEY), (path) =>
      traffic.fetch(`${options.url.replace(/\/$/, "")}${path}`, {
        headers: { authorization: `Bearer ${options.key}` },
      }),
    ),
    ...grpcChecks(ctx, options.mock ? undefined : options.grpcUrl, { owner: options.key }),
    ...wsChecks(ctx, options.mock ? undefined : wsUrl, MOCK, { owner: options.key }),
  ];
  const results = await runChecks([...checks, ...rateLimitChecks(traffic.history)], traffic, onResult);
  return {
    runId: options.runId,
    target: { url: options.url, grpcUrl: options.grpcUrl, wsUrl: options.mock ? undefined : wsUrl },
    write: options.write,
    mock: options.mock,
    startedAt,
    results,
  };
}

/**
 * Runs the checks one after another. A check's stray failure (a promise it left unawaited that
 * rejects) fails that check instead of ending the process before the report is written.
 */
export async function runChecks(
  checks: Check[],
  traffic: Traffic,
  onResult?: (r: CheckResult) => void,
): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const strays: unknown[] = [];
  const onStray = (reason: unknown) => void strays.push(reason);
  process.on("unhandledRejection", onStray);
  try {
    for (const check of checks) {
      const result = await runCheck(check, traffic, strays);
      results.push(result);
      onResult?.(result);
    }
  } finally {
    process.off("unhandledRejection", onStray);
  }
  return results;
}

function defaultWsUrl(base: URL): string {
  const url = new URL(base);
  url.protocol = base.protocol === "https:" ? "wss:" : "ws:";
  url.pathname = `${base.pathname.replace(/\/$/, "")}/ws`;
  return url.toString();
}

/** Each operation's valid call and its error cases, in the spec's order, and the unknown-key refusals. */
function restChecks(ctx: Ctx, unknownKey: StampdClient, get: (path: string) => Promise<Response>): Check[] {
  const checks: Check[] = [];
  for (const { operationId, method, path } of listOperations()) {
    // The spec read at run time may be newer than the kit's recipes (a checkout whose gen/ is stale).
    const cases = restCases[operationId] as OperationCases | undefined;
    if (!cases) {
      checks.push(specOnlyCheck(get, operationId, method, path));
      continue;
    }
    checks.push({
      area: "rest",
      name: `${operationId} answers as documented`,
      run: async () => {
        await cases.check?.(await cases.call(ctx), ctx);
      },
    });
    for (const error of cases.errors ?? []) {
      checks.push({
        area: error.area ?? "rest",
        name: `${operationId} answers ${error.status}${error.code ? ` ${error.code}` : ""} to ${error.name}`,
        run: async () => {
          if (ctx.mock) throw new NotRun(MOCK);
          await expectError(error.provoke(ctx), error.status, error.code);
        },
      });
    }
  }
  // One public operation, one that needs a key, one with a path parameter.
  const refusals: [string, () => PromiseLike<unknown>][] = [
    ["getRoot", () => unknownKey.service.root()],
    ["listVaults", () => unknownKey.vault.list()],
    ["getStamp", () => unknownKey.stamps.get("stp_00000000000000000000000000")],
  ];
  for (const [operationId, call] of refusals)
    checks.push({
      area: "auth",
      name: `${operationId} refuses an unknown key with 401 invalid_api_key and a Bearer challenge`,
      run: async () => {
        if (ctx.mock) throw new NotRun(MOCK);
        const error = await expectError(call(), 401, "invalid_api_key");
        const challenge = error.headers?.get("www-authenticate") ?? "";
        if (!/^Bearer realm="stampd"/.test(challenge))
          throw new CheckFailed(
            'WWW-Authenticate: Bearer realm="stampd"…',
            `WWW-Authenticate: ${challenge || "(none)"}`,
          );
      },
    });
  return checks;
}

/**
 * An operation the kit has no recipe for: a GET without parameters is sent as it is (owner key)
 * and its answer judged by the spec alone; any other is not run.
 */
function specOnlyCheck(
  get: (path: string) => Promise<Response>,
  operationId: string,
  method: string,
  path: string,
): Check {
  return {
    area: "rest",
    name: `${operationId} answers as documented`,
    run: async () => {
      if (method !== "get" || path.includes("{"))
        throw new NotRun(`the kit has no request for ${method.toUpperCase()} ${path} yet`);
      await (await get(path)).arrayBuffer();
    },
  };
}

/** Awaits a call that must fail with `status` (and `code`). */
async function expectError(call: PromiseLike<unknown>, status: number, code?: string): Promise<APIError> {
  const expected = `${status}${code ? ` ${code}` : ""}`;
  try {
    await call;
  } catch (err) {
    if (!(err instanceof APIError) || notRunIn(err)) throw err;
    if (err.status === status && (code === undefined || err.code === code)) return err;
    throw new CheckFailed(expected, `${err.status} ${err.code ?? ""}`.trimEnd());
  }
  throw new CheckFailed(expected, "a success answer");
}

async function runCheck(check: Check, traffic: Traffic, strays: unknown[]): Promise<CheckResult> {
  traffic.begin();
  const started = Date.now();
  let outcome: Outcome;
  try {
    await check.run();
    if (strays.length) throw strays[0];
    outcome = { status: "passed" };
  } catch (err) {
    outcome = outcomeOf(err, traffic.seen().at(-1));
  }
  strays.length = 0;
  // An answer the spec does not allow is the failure to report, whatever the check made of it.
  const wrong = traffic.seen().find((e) => e.problems.length > 0);
  if (wrong) outcome = { status: "failed", failure: specFailure(wrong) };
  return { area: check.area, name: check.name, ms: Date.now() - started, outcome };
}

function outcomeOf(err: unknown, last: Exchange | undefined): Outcome {
  const notRun = notRunIn(err);
  if (notRun) return { status: "not_run", reason: notRun.message };
  const request = last?.request;
  if (err instanceof CheckFailed)
    return {
      status: "failed",
      failure: {
        request: err.request ?? request,
        expected: err.expected,
        actual: withBody(err.actual, last),
      },
    };
  if (err instanceof APIError)
    return {
      status: "failed",
      failure: {
        request,
        expected: "a success answer",
        actual: withBody(`${err.status} ${err.code ?? ""}`.trimEnd(), last),
      },
    };
  return {
    status: "failed",
    failure: { request, expected: "the call to complete", actual: String((err as Error)?.message ?? err) },
  };
}

function withBody(actual: string, last: Exchange | undefined): string {
  return last && /^\d{3}\b/.test(actual) ? `${actual}: ${last.excerpt.slice(0, 300)}` : actual;
}

function specFailure(e: Exchange): Failure {
  return {
    request: e.request,
    expected: `an answer specs/openapi.yaml documents for ${e.operationId ?? "an operation"}`,
    actual: `${e.status}: ${e.problems.join("; ")}; body: ${e.excerpt.slice(0, 300)}`,
  };
}
