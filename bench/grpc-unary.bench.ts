// npm run bench -- grpc-unary: CreateStamp with 50 calls in flight on one HTTP/2 connection, against
// two baselines of the same proto, each in a process of its own: a bare connect-node echo
// (bench/lib/grpc-echo.ts: no auth, signing or storage) and an @grpc/grpc-js server implementing
// CreateStamp the obvious way (bench/lib/grpc-js-stamp.ts: hash check, Ed25519 signature, one
// SQLite row per call with synchronous=FULL). stampd runs as it ships (auth interceptor, limiter
// with limits too high to refuse, signing, SQLite, batching in the background). The load comes
// from a Connect client pool in a fourth process (bench/lib/grpc-load.ts).
import { join } from "node:path";
import type { LoadCommand, LoadResult } from "./lib/grpc-load.js";
import { ask, forkEntry, start, stop, tempDir } from "./lib/processes.js";
import { count, type Row, report, round } from "./lib/report.js";
import { alternate, best, median } from "./lib/rounds.js";
import { rounds, seconds } from "./lib/settings.js";
import { startStampdProcess } from "./lib/stampd-process.js";

const CONCURRENCY = 50;
const TARGETS = { "connect echo": 0.5, "grpc-js + SQLite": 1 };

const dir = tempDir();
const [stampd, echo, grpcJs] = await Promise.all([
  startStampdProcess(join(dir.path, "stampd")),
  start<{ grpc: number }>("bench/lib/grpc-echo.ts"),
  start<{ grpc: number }>("bench/lib/grpc-js-stamp.ts", { args: [join(dir.path, "grpc-js.db")] }),
]);
const load = forkEntry("bench/lib/grpc-load.ts");
const urls = {
  stampd: `http://127.0.0.1:${stampd.ready.grpc}`,
  "connect echo": `http://127.0.0.1:${echo.ready.grpc}`,
  "grpc-js + SQLite": `http://127.0.0.1:${grpcJs.ready.grpc}`,
};
type Server = keyof typeof urls;

try {
  const settings = { rounds: rounds(3), seconds: seconds(5), warmupSeconds: seconds(2) };
  const measure = (server: Server, secs: number) => {
    const command: LoadCommand = {
      url: urls[server],
      kind: "create",
      concurrency: CONCURRENCY,
      seconds: secs,
    };
    return ask<LoadResult>(load, command);
  };
  const names = Object.keys(urls) as Server[];
  for (const server of names) await measure(server, settings.warmupSeconds);
  const runs = await alternate(names, settings.rounds, (server) => measure(server, settings.seconds));
  const rate = (r: LoadResult) => r.stamps / r.seconds;
  const bestRate = (server: Server) => best(runs[server].map(rate));
  const rows: Row[] = names.map((server) => ({
    server,
    "stamps/s best": Math.round(bestRate(server)),
    "stamps/s median": Math.round(median(runs[server].map(rate))),
    "p50 ms": round(median(runs[server].map((r) => r.p50Ms)), 1),
    "p99 ms": round(median(runs[server].map((r) => r.p99Ms)), 1),
  }));
  const targets = (Object.keys(TARGETS) as (keyof typeof TARGETS)[]).map((baseline) => {
    const value = round(bestRate("stampd") / bestRate(baseline));
    return {
      what: `CreateStamp, ${CONCURRENCY} calls in flight: stamps/s`,
      target: `≥ ${TARGETS[baseline]} × ${baseline}`,
      value,
      unit: "×",
      stampd: `${count(bestRate("stampd"))}/s`,
      baseline: `${count(bestRate(baseline))}/s`,
      met: value >= TARGETS[baseline],
    };
  });
  report("grpc-unary", {
    rows,
    targets,
    note: "stamps/s of the best round (the one least disturbed by other work); ratio = stampd / baseline.",
    concurrency: CONCURRENCY,
    ...settings,
    runs,
  });
} finally {
  load.send("exit");
  await Promise.all([stop(stampd.process), stop(echo.process), stop(grpcJs.process)]);
  dir.cleanup();
}
