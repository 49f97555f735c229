import { randomInt } from "node:crypto";
import { parseArgs } from "node:util";
import type { Surface } from "../test/fuzz/report.js";

/**
 * `npm run fuzz`: spec-driven fuzzing of REST, WebSocket and gRPC against a fresh local service.
 *
 *   npm run fuzz                          # 10 000 REST, 3 000 WebSocket, 2 000 gRPC requests, random seed
 *   npm run fuzz -- --seed 42             # replay a run
 *   npm run fuzz -- --rest 500 --ws 0 --grpc 0
 *
 * FUZZ_SEED, FUZZ_REST, FUZZ_WS and FUZZ_GRPC set the same from the environment. Exits 1 on any
 * failure, after printing each with the seed and the exact request.
 */
const usage = `usage: npm run fuzz -- [--seed <n>] [--rest <n>] [--ws <n>] [--grpc <n>]

Spec-driven fuzzing of REST, WebSocket and gRPC against a fresh local service.

  --seed <n>   replay a run (default: random; env FUZZ_SEED)
  --rest <n>   REST requests (default 10000; env FUZZ_REST)
  --ws <n>     WebSocket frames (default 3000; env FUZZ_WS)
  --grpc <n>   gRPC calls (default 2000; env FUZZ_GRPC)
  --help       this text

Exits 1 on any failure, after printing each with the seed and the exact request.`;

const { values } = parseArgsOrExit();
if (values.help) {
  console.log(usage);
  process.exit(0);
}

const seed = values.seed === undefined ? randomInt(2 ** 31) : Number(values.seed);
const counts: Record<Surface, number> = {
  rest: Number(values.rest),
  ws: Number(values.ws),
  grpc: Number(values.grpc),
};
for (const [name, value] of Object.entries({ seed, ...counts })) {
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer`);
}

// Loaded once the options are known: the service they start takes seconds to load, --help none.
const { formatReport } = await import("../test/fuzz/report.js");
const { fuzzService } = await import("../test/fuzz/run.js");
console.log(`fuzz: seed ${seed} (replay with: npm run fuzz -- --seed ${seed})`);
const started = performance.now();
const reports = await fuzzService({ seed, counts });
const seconds = ((performance.now() - started) / 1000).toFixed(1);
for (const report of reports) console.log(formatReport(seed, report, "npm run fuzz --").join("\n"));
const requests = reports.reduce((n, r) => n + r.requests, 0);
const failures = reports.reduce((n, r) => n + r.failures.length, 0);
console.log(`fuzz: seed ${seed}, ${requests} requests in ${seconds} s, ${failures} failures`);
process.exitCode = failures > 0 ? 1 : 0;

/** The options; an unknown or malformed one prints the usage and exits 2, as command-line tools do. */
function parseArgsOrExit() {
  try {
    return parseArgs({
      options: {
        seed: { type: "string", default: process.env.FUZZ_SEED },
        rest: { type: "string", default: process.env.FUZZ_REST ?? "10000" },
        ws: { type: "string", default: process.env.FUZZ_WS ?? "3000" },
        grpc: { type: "string", default: process.env.FUZZ_GRPC ?? "2000" },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage}`);
    process.exit(2);
  }
}
