/** The three surfaces the fuzzer drives. */
export type Surface = "rest" | "ws" | "grpc";

/** One request whose answer broke the contract, with all it takes to reproduce it. */
export interface FuzzFailure {
  surface: Surface;
  /** Position in the run (with the seed, it names the request). */
  index: number;
  /** The operation, message type or gRPC method. */
  target: string;
  /** How the request was made: the mutation applied, or "valid". */
  mutation: string;
  /** The request exactly as sent. */
  request: string;
  problems: string[];
}

export interface SurfaceReport {
  surface: Surface;
  requests: number;
  failures: FuzzFailure[];
  /** Counts by outcome (statuses, close codes, gRPC codes), to show what the run reached. */
  outcomes: Record<string, number>;
}

/** Stops a run from flooding the terminal; the count of failures is always exact. */
const MAX_PRINTED_FAILURES = 20;

export function formatReport(seed: number, report: SurfaceReport, command: string): string[] {
  const outcomes = Object.entries(report.outcomes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  const lines = [
    `${report.surface}: ${report.requests} requests, ${report.failures.length} failures (${outcomes})`,
  ];
  for (const failure of report.failures.slice(0, MAX_PRINTED_FAILURES)) {
    lines.push(
      "",
      `FAIL ${failure.surface} #${failure.index} ${failure.target} [${failure.mutation}] (seed ${seed}; rerun: ${command} --seed ${seed})`,
      ...failure.problems.map((p) => `  - ${p}`),
      ...failure.request.split("\n").map((l) => `  | ${l}`),
    );
  }
  if (report.failures.length > MAX_PRINTED_FAILURES)
    lines.push(`… and ${report.failures.length - MAX_PRINTED_FAILURES} more`);
  return lines;
}

export function count(outcomes: Record<string, number>, key: string): void {
  outcomes[key] = (outcomes[key] ?? 0) + 1;
}
