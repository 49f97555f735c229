// npm run soak [-- --duration 30m --interval 10s --scale 1]: mixed REST, gRPC and WebSocket traffic
// against the real server in a child process for a while, sampling its RSS (/proc/<pid>/status) and
// the latency percentiles of each interval. Prints a table as it goes, writes bench/results/soak.json,
// and exits 1 unless RSS stayed flat after warm-up and no call failed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { RestCalls, receiptMinter } from "../test/helpers/rest-calls.js";
import { createKeyWithCli, ServerProcess } from "../test/helpers/server-process.js";
import { Recorder } from "./soak/recorder.js";
import { judgeFlatness, median, parseDuration, type RssSample } from "./soak/stats.js";
import { Traffic } from "./soak/traffic.js";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: process.env.SOAK_DURATION ?? "30m" },
    interval: { type: "string", default: "10s" },
    scale: { type: "string", default: "1" },
  },
});
const durationS = parseDuration(values.duration);
const intervalS = parseDuration(values.interval);
const scale = Number(values.scale);
// Warm-up: the first 20 % (at least 90 s), while heaps, caches and pools grow to their working
// size: here V8's heap climbs by about a third over the first 45 to 110 s, until its first full
// collections bring it back. Then the median RSS of the last window must be < 10 % above that of the
// first window after warm-up. The heap keeps a sawtooth of a few minutes' period (collections let it
// grow by 30-40 % before bringing it back), so windows are long: 20 % of the run each, which in 30
// minutes spans more than one period; a shorter run takes halves of what follows the warm-up.
const warmupSeconds = Math.max(90, durationS * 0.2);
const rule = {
  warmupSeconds,
  windowSeconds: Math.min(durationS * 0.2, (durationS - warmupSeconds) / 2),
  maxGrowth: 0.1,
};
if (rule.windowSeconds < 10) {
  console.error(`--duration ${values.duration} is too short: warm-up and two windows need 110 s at least`);
  process.exit(2);
}
const vaultCount = 20;

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function main(): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-soak-"));
  const env = { DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false" };
  const key = await createKeyWithCli(env);
  const server = await ServerProcess.start(env);
  try {
    return await soak(server, key, dataDir);
  } finally {
    await server.stop("SIGTERM");
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function soak(server: ServerProcess, key: string, dataDir: string): Promise<number> {
  const rest = new RestCalls(server.baseUrl, key);
  const vaultIds: string[] = [];
  for (let i = 0; i < vaultCount; i++) vaultIds.push((await rest.createVault(86_400)).id);
  const recorder = new Recorder();
  const target = {
    rest,
    grpcUrl: `http://127.0.0.1:${server.grpcPort}`,
    wsUrl: server.wsUrl,
    key,
    vaultIds,
    mintReceipt: receiptMinter(dataDir),
  };
  const traffic = new Traffic(target, recorder, scale);
  console.log(
    `soak: ${durationS} s at scale ${scale}, server pid ${server.pid}; warm-up ${rule.warmupSeconds} s, ` +
      `windows of ${rule.windowSeconds} s, RSS growth must stay < ${rule.maxGrowth * 100} %`,
  );
  await traffic.start();
  const started = performance.now();
  const elapsed = () => (performance.now() - started) / 1000;
  const samples: RssSample[] = [];
  const rows = [];
  console.log("    t s   rss MB    calls  failed  p50 ms  p95 ms  p99 ms  ws events  watch msgs");
  while (elapsed() < durationS) {
    const intervalEnd = Math.min(durationS, (rows.length + 1) * intervalS);
    const inInterval: number[] = [];
    while (elapsed() < intervalEnd) {
      const bytes = await server.rssBytes();
      samples.push({ t: elapsed(), bytes });
      inInterval.push(bytes);
      await sleep(1000);
    }
    const figures = recorder.drain();
    const row = {
      t_s: Math.round(elapsed()),
      rss_mb: mb(median(inInterval)),
      calls: figures.calls,
      failed: figures.failed,
      p50_ms: figures.p50,
      p95_ms: figures.p95,
      p99_ms: figures.p99,
      ws_events: traffic.counts.wsEvents,
      watch_messages: traffic.counts.watchMessages,
    };
    rows.push({ ...row, by_op: figures.byOp });
    console.log(
      Object.values(row)
        .map((v, i) => String(v).padStart([7, 9, 9, 8, 8, 8, 8, 11, 12][i]!))
        .join(""),
    );
  }
  await traffic.stop();
  const flat = judgeFlatness(samples, rule, elapsed());
  const pass = flat.pass && recorder.totalFailures === 0;
  const summary = {
    duration_s: durationS,
    interval_s: intervalS,
    scale,
    rule,
    rss: {
      first_window_median_mb: mb(flat.firstWindowMedian),
      last_window_median_mb: mb(flat.lastWindowMedian),
      growth_pct: Math.round(flat.growth * 1000) / 10,
      flat: flat.pass,
    },
    calls: recorder.totalCalls,
    failures: recorder.totalFailures,
    failure_samples: [...recorder.failureSamples],
    streams: traffic.counts,
    pass,
  };
  // Every RSS reading (seconds, MB), so the judgement can be checked or redone with another rule.
  const rssSamples = samples.map((x) => [Math.round(x.t * 10) / 10, mb(x.bytes)]);
  writeResult({ summary, intervals: rows, rss_samples: rssSamples });
  console.log(
    `RSS ${summary.rss.first_window_median_mb} MB -> ${summary.rss.last_window_median_mb} MB ` +
      `(${summary.rss.growth_pct} %, limit < ${rule.maxGrowth * 100} %): ${flat.pass ? "flat" : "GROWING"}; ` +
      `${recorder.totalCalls} calls, ${recorder.totalFailures} failed`,
  );
  for (const sample of recorder.failureSamples) console.log(`  failure: ${sample}`);
  console.log(pass ? "soak: PASS" : "soak: FAIL");
  return pass ? 0 : 1;
}

/** bench/results/soak.json (BENCH_RESULTS_DIR, when set, as for the benchmarks). */
function writeResult(result: object): void {
  const dir = process.env.BENCH_RESULTS_DIR || new URL("../bench/results/", import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const machine = { node: process.version, cpu: cpus()[0]?.model ?? "unknown", cores: cpus().length };
  const body = { name: "soak", at: new Date().toISOString(), machine, ...result };
  writeFileSync(join(dir, "soak.json"), `${JSON.stringify(body, null, 2)}\n`);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
