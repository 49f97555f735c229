// npm run bench -- grpc: throughput of svc.v1.StampService against a bare connect-node server of
// the same proto that only echoes (bench/lib/grpc-echo.ts), in the same run: CreateStamp with 50
// calls in flight, and BatchStamp of 1000 items one call at a time. stampd runs as it ships (auth
// interceptor, rate limiter with limits too high to refuse, signing, SQLite with synchronous=FULL,
// the proof pipeline sealing in the background). The load comes from another process
// (bench/lib/grpc-load.ts); targets take turns over several rounds so drift hits both alike.
import { type ChildProcess, fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build, type Service } from "../server/build.js";
import { loadConfig } from "../server/config.js";
import { listen, shutdownGracefully } from "../server/lifecycle.js";
import { createLogger } from "../server/logger.js";
import { openRateLimiter } from "../server/ratelimit/open.js";
import { echoServer } from "./lib/grpc-echo.js";
import type { LoadCommand, LoadResult } from "./lib/grpc-load.js";
import { report } from "./lib/report.js";

const ROUNDS = 3;
const SECONDS = 5;
const scenarios = [
  { name: "CreateStamp", kind: "create", concurrency: 50, batchSize: 0 },
  { name: "BatchStamp x1000", kind: "batch", concurrency: 1, batchSize: 1000 },
] as const;

const dataDir = mkdtempSync(join(tmpdir(), "stampd-bench-"));
const stampd = await startStampd();
const bare = echoServer();
await listen(bare, 0, "127.0.0.1");
const targets = {
  stampd: `http://127.0.0.1:${(stampd.grpc.server.address() as AddressInfo).port}`,
  bare: `http://127.0.0.1:${(bare.address() as AddressInfo).port}`,
};
const load = fork(new URL("./lib/grpc-load.ts", import.meta.url), [], { execArgv: ["--import", "tsx"] });

try {
  const rows = [];
  const runs: Record<string, Record<string, LoadResult[]>> = {};
  for (const scenario of scenarios) {
    const results: Record<string, LoadResult[]> = { stampd: [], bare: [] };
    for (const target of Object.keys(targets) as (keyof typeof targets)[]) {
      await measure(target, scenario, 1); // warm-up: JIT, connection, SQLite pages
    }
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 ? (["bare", "stampd"] as const) : (["stampd", "bare"] as const);
      for (const target of order) results[target]!.push(await measure(target, scenario, SECONDS));
    }
    runs[scenario.name] = results;
    const ours = best(results.stampd!);
    const base = best(results.bare!);
    rows.push({
      rpc: scenario.name,
      "in flight": scenario.concurrency,
      "stampd stamps/s": Math.round(ours.stamps / ours.seconds),
      "bare stamps/s": Math.round(base.stamps / base.seconds),
      ratio: Number((ours.stamps / ours.seconds / (base.stamps / base.seconds)).toFixed(3)),
      "stampd p50 ms": ours.p50Ms,
      "stampd p99 ms": ours.p99Ms,
      "bare p50 ms": base.p50Ms,
      "bare p99 ms": base.p99Ms,
    });
  }
  report("grpc", rows, {
    note:
      "stamps/s of the best of the rounds (the one least disturbed by other work); ratio = stampd / bare " +
      "connect-node echo of the same proto. Latency is per call (a BatchStamp call holds 1000 stamps).",
    rounds: ROUNDS,
    secondsPerRun: SECONDS,
    runs,
  });
} finally {
  load.send("exit");
  await shutdownGracefully(stampd, 1000);
  bare.close();
  rmSync(dataDir, { recursive: true, force: true });
}

async function measure(
  target: keyof typeof targets,
  scenario: (typeof scenarios)[number],
  seconds: number,
): Promise<LoadResult> {
  const command: LoadCommand = { url: targets[target], ...scenario, seconds };
  const answer = nextMessage(load);
  load.send(command);
  return answer;
}

function nextMessage(child: ChildProcess): Promise<LoadResult> {
  return new Promise((resolve) => child.once("message", (m) => resolve(m as LoadResult)));
}

function best(results: LoadResult[]): LoadResult {
  return results.reduce((a, b) => (b.stamps / b.seconds > a.stamps / a.seconds ? b : a));
}

async function startStampd(): Promise<Service> {
  const config = loadConfig({
    NODE_ENV: "development",
    LOG_LEVEL: "silent",
    HOST: "127.0.0.1",
    PORT: "0",
    DATA_DIR: dataDir,
    VALIDATE_RESPONSES: "false",
  });
  // The limiter runs (its cost is part of a call) but never refuses: every call here is one client.
  const unlimited = { perMinute: 1e12, perHour: 1e12, burst: 1e12 };
  const tiers = { anonymous: unlimited, authenticated: unlimited, premium: unlimited, internal: unlimited };
  const logger = createLogger(config);
  const rateLimiter = await openRateLimiter(config, { logger, tiers });
  const service = await build(config, { logger, rateLimiter });
  await listen(service.grpc.server, 0, "127.0.0.1");
  return service;
}
