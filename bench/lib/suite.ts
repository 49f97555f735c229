/** The benchmarks of the suite, in the order `npm run bench` runs them (issue #13's eight, then issue #23's search). */
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
] as const;

export type BenchName = (typeof suite)[number];
