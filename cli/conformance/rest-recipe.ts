/** The shape of a REST request recipe (rest-cases.ts, log-tile-cases.ts) and what it runs with. */
import type { RequestOptions, StampdClient } from "../../sdk/src/index.js";
import type { Area } from "./check.js";
import type { Fixtures } from "./fixtures.js";

/** What a REST case runs with. */
export interface Ctx {
  /** The target is a mock: answers are the spec's examples, not state. */
  mock: boolean;
  /** `--write`: checks may create stamps, identities and vaults. */
  write: boolean;
  /** Authenticated as the owner (`--key`). */
  client: StampdClient;
  /** No key. */
  anonymous: StampdClient;
  /** The second account (`--other-key`); throws `NotRun` without it. */
  other(): StampdClient;
  fx: Fixtures;
  runId: string;
  /** The target's MAX_UPLOAD_BYTES (`--max-upload-bytes`), for the 413 cases. */
  uploadLimit?: number;
}

/** An error answer the target must give to a request made for that purpose. */
export interface ErrorCase {
  name: string;
  status: number;
  code?: string;
  /** Default "rest"; "auth" for keys and other accounts' resources. */
  area?: Area;
  /**
   * The request breaks the contract on purpose (invalid input, missing key). A validating proxy
   * such as Prism answers it itself instead of forwarding it (test/contract/proxy.test.ts).
   */
  invalidRequest?: boolean;
  provoke(ctx: Ctx): PromiseLike<unknown>;
}

/** One operation: a valid call through the SDK, checks of its answer, and its error cases. */
export interface OperationCases<T = unknown> {
  call(ctx: Ctx, options?: RequestOptions): PromiseLike<T>;
  /**
   * Checks beyond the spec's schema. They run on a mock's answers too (the spec's examples), so
   * the comparisons only real state can pass are made when `!ctx.mock`.
   */
  check?(body: T, ctx: Ctx): void | Promise<void>;
  errors?: ErrorCase[];
}
