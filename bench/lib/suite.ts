/** The eight benchmarks of the suite, in the order `npm run bench` runs them (issue #13's order). */
export const suite = [
  "rest-create",
  "rest-get",
  "grpc-unary",
  "grpc-bulk",
  "upload",
  "ratelimit",
  "ws-fanout",
  "fingerprint",
] as const;

export type BenchName = (typeof suite)[number];
