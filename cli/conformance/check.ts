/** Where a check belongs in the summary. */
export type Area = "rest" | "auth" | "rate-limit" | "grpc" | "ws";
export const AREAS: readonly Area[] = ["rest", "auth", "rate-limit", "grpc", "ws"];

/** One conformance check: a name, and a run that throws `CheckFailed` or `NotRun`, or returns. */
export interface Check {
  area: Area;
  /** Unique within the run, e.g. "getStamp answers 404 stamp_not_found to an unknown stamp". */
  name: string;
  run(): Promise<void>;
}

/** The evidence of a failed check, as the report prints it. */
export interface Failure {
  /** The request that got the wrong answer (method, URL, body excerpt), when there was one. */
  request?: string;
  expected: string;
  actual: string;
}

export type Outcome =
  | { status: "passed" }
  | { status: "failed"; failure: Failure }
  | { status: "not_run"; reason: string };

export interface CheckResult {
  area: Area;
  name: string;
  ms: number;
  outcome: Outcome;
}

/** The target answered otherwise than the contract says. */
export class CheckFailed extends Error {
  override name = "CheckFailed";
  constructor(
    readonly expected: string,
    readonly actual: string,
    readonly request?: string,
  ) {
    super(`expected ${expected}, got ${actual}`);
  }
}

/** The check cannot run with what was given (a flag, a mock); `message` says what is missing. */
export class NotRun extends Error {
  override name = "NotRun";
}

/** Throws `CheckFailed` unless `ok`. */
export function expectThat(ok: boolean, expected: string, actual: () => string): void {
  if (!ok) throw new CheckFailed(expected, actual());
}

/** The `NotRun` anywhere in an error's cause chain (the SDK wraps what its fetch throws). */
export function notRunIn(err: unknown): NotRun | undefined {
  for (let at = err; at instanceof Error; at = at.cause) if (at instanceof NotRun) return at;
  return undefined;
}
