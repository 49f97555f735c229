/**
 * The benchmarks of the suite, in the order `npm run bench` runs them: issue #13's eight, issue
 * #23's search, then issue #34's PostgreSQL rows (numbered 10 to 13 in bench/README.md).
 */
export const suite = [
  "rest-create",
  "rest-get",
  "grpc-unary",
  "grpc-bulk",
  "upload",
  "ratelimit",
  "ws-fanout",
  "fingerprint",
  "search",
  "rest-create-postgres",
  "rest-get-postgres",
  "grpc-bulk-postgres",
  "scale-out-postgres",
] as const;

export type BenchName = (typeof suite)[number];
