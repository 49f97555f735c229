import { describe, expect, it } from "vitest";
import { restCases } from "../../cli/conformance/rest-cases.js";
import type { Ctx } from "../../cli/conformance/rest-recipe.js";
import {
  type APIError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PayloadTooLargeError,
  PermissionDeniedError,
  RateLimitError,
  type RequestOptions,
  UnprocessableEntityError,
} from "../../sdk/src/index.js";
import { listOperations, type OperationId } from "../../server/contract/openapi.js";
import { documentedErrors } from "./spec-errors.js";

/** The clients and fixtures one run of the suite uses, made in the test file's beforeAll. */
export interface ContractTarget {
  /** Live resources on a real server, or the spec's examples for the mock. */
  ctx: Ctx;
  /** The same clients with example fixtures: for requests whose ids need not exist. */
  exampleCtx: Ctx;
  /** A client whose key is well-formed but unknown to the server. */
  badKey: Ctx["client"];
}

export interface SuiteOptions {
  mode: "mock" | "real";
  /** Real server only: the operations it implements; every other one must still answer 501. */
  implemented?: ReadonlySet<OperationId>;
  /** Real server only: cases that cannot pass yet, by "<operationId> <case>", with the reason. */
  pending?: Readonly<Record<string, string>>;
  /** Leave out requests that break the contract on purpose (Prism in front answers those itself). */
  validRequestsOnly?: boolean;
}

const errorClasses: Record<number, abstract new (...args: never[]) => APIError> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/** Awaits a call that must fail with `status` (and `code`), as the SDK's error class for it. */
export async function expectError(
  call: PromiseLike<unknown>,
  status: number,
  code?: string,
): Promise<APIError> {
  const error = (await Promise.resolve(call).then(
    () => expect.unreachable(`expected a ${status} error`),
    (e: unknown) => e,
  )) as APIError;
  expect(error).toBeInstanceOf(errorClasses[status] ?? InternalServerError);
  expect({ status: error.status, code: error.code }).toEqual({ status, code });
  return error;
}

/**
 * The contract suite: every REST operation of specs/openapi.yaml through the SDK, by the request
 * recipes of the conformance kit (cli/conformance/rest-cases.ts), so that the kit users run is the
 * one this repository tests. Against the mock
 * it checks each operation's example answer and every documented error example; against a real
 * server it runs the operations in `implemented` for real and checks that all others still
 * answer 501, so the list can never claim less or more than the server does.
 */
export function contractSuite(options: SuiteOptions, target: () => ContractTarget): void {
  for (const { operationId } of listOperations()) {
    describe(operationId, () => {
      if (options.mode === "mock") mockCases(operationId, target);
      else if (options.implemented?.has(operationId)) realCases(operationId, options, target);
      // Prism's proxy mocks any 501 from upstream ("remocking"), so the 501 check runs directly only.
      else if (!options.validRequestsOnly) notImplementedCase(operationId, target);
      if (options.mode === "real") badKeyCase(operationId, target);
    });
  }
}

function mockCases(operationId: OperationId, target: () => ContractTarget): void {
  const contract = restCases[operationId];
  it("answers with the spec's example", async () => {
    const { ctx } = target();
    await contract.check?.(await contract.call(ctx), ctx);
  });
  for (const documented of documentedErrors(operationId)) {
    const prefer = `code=${documented.status}${documented.example ? `, example=${documented.example}` : ""}`;
    it(`throws the class for ${documented.status} ${documented.example ?? ""}`.trimEnd(), async () => {
      const options: RequestOptions = { headers: { Prefer: prefer }, maxRetries: 0 };
      const error = await expectError(
        contract.call(target().ctx, options),
        documented.status,
        codeOf(documented.body),
      );
      expect(error.body).toEqual(documented.body);
      if (error instanceof RateLimitError) expect(error.retryAfter).toBeGreaterThan(0);
    });
  }
}

function realCases(operationId: OperationId, options: SuiteOptions, target: () => ContractTarget): void {
  const contract = restCases[operationId];
  const realIt = (name: string, run: () => Promise<void>) => {
    const reason = options.pending?.[`${operationId} ${name}`];
    // Through Prism a pending case would meet a 501 that Prism mocks; the direct run covers it.
    if (reason && options.validRequestsOnly) return;
    if (reason) it.fails(`${name} (pending: ${reason})`, run);
    else it(name, run);
  };
  realIt("succeeds", async () => {
    const { ctx } = target();
    await contract.check?.(await contract.call(ctx), ctx);
  });
  for (const error of contract.errors ?? []) {
    if (options.validRequestsOnly && error.invalidRequest) continue;
    realIt(`answers ${error.status} to ${error.name}`, async () => {
      await expectError(error.provoke(target().ctx), error.status, error.code);
    });
  }
}

function notImplementedCase(operationId: OperationId, target: () => ContractTarget): void {
  it("still answers 501 (add it to test/contract/implemented.ts once it is implemented)", async () => {
    const call = restCases[operationId].call(target().exampleCtx, { maxRetries: 0 });
    await expectError(call, 501, "not_implemented");
  });
}

function badKeyCase(operationId: OperationId, target: () => ContractTarget): void {
  it("refuses an unknown key with 401 invalid_api_key", async () => {
    const { exampleCtx, badKey } = target();
    const error = await expectError(
      restCases[operationId].call({ ...exampleCtx, client: badKey }),
      401,
      "invalid_api_key",
    );
    expect(error.headers?.get("www-authenticate")).toMatch(/^Bearer realm="stampd"/);
  });
}

function codeOf(body: unknown): string | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { code, error } = body as { code?: string; error?: string };
  return code ?? error;
}
