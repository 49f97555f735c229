/**
 * The benchmarks of the suite, in the order `npm run bench` runs them: issue #13's eight, issue
 * #23's search, then issue #34's PostgreSQL rows, each beside its SQLite counterpart.
 */
export const suite = [
  "rest-create",
  "rest-create-postgres",
  "rest-get",
  "rest-get-postgres",
  "grpc-unary",
  "grpc-bulk",
  "grpc-bulk-postgres",
  "upload",
  "ratelimit",
  "ws-fanout",
  "fingerprint",
  "search",
  "scale-out-postgres",
] as const;

export type BenchName = (typeof suite)[number];
