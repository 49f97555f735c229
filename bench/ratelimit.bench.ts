// npm run bench -- ratelimit: what the rate limiter costs a cheap, non-exempt route (GET /, weight
// 1.0). Each configuration runs in its own server process with limits too high to throttle, loaded by
// autocannon in another process; configurations alternate over several rounds so drift hits them
// alike. Also counts the Redis round trips per request on a redis-server of the benchmark's own, and
// times RateLimiter.consume alone, in this process (steadier than HTTP figures on a busy machine).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { anonymous } from "../server/auth/principal.js";
import { loadConfig } from "../server/config.js";
import { createLogger } from "../server/logger.js";
import { algorithms } from "../server/ratelimit/algorithm.js";
import { openRateLimiter } from "../server/ratelimit/open.js";
import { PrivateRedis } from "../test/helpers/redis.js";
import { report } from "./lib/report.js";

const ROUNDS = 5;
const SECONDS = 6;
const CONNECTIONS = 32;
const root = fileURLToPath(new URL("..", import.meta.url));

interface Setup {
  name: string;
  env: Record<string, string>;
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  refused: number;
}

const redis = await PrivateRedis.start();
const setups: Setup[] = [
  { name: "off", env: { RATE_LIMIT_ENABLED: "false" } },
  { name: "memory token_bucket", env: {} },
  { name: "memory sliding_window", env: { RATE_LIMIT_ALGORITHM: "sliding_window" } },
  { name: "redis token_bucket", env: { REDIS_URL: redis.url } },
  { name: "redis sliding_window", env: { REDIS_URL: redis.url, RATE_LIMIT_ALGORITHM: "sliding_window" } },
];

try {
  const runs = new Map<string, Run[]>(setups.map((s) => [s.name, []]));
  const roundTrips = new Map<string, { perRequest: number; commandsInScript: number }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const setup of setups) {
      const measured = await measure(setup);
      runs.get(setup.name)!.push(measured.run);
      if (measured.redis) roundTrips.set(setup.name, measured.redis);
    }
  }
  // The best round is the one least disturbed by other work on the machine; the median is shown too.
  const baseline = runs.get("off")!.map((r) => r.rps);
  const rows = setups.map(({ name }) => {
    const rs = runs.get(name)!.map((r) => r.rps);
    return {
      limiter: name,
      "req/s best": Math.round(Math.max(...rs)),
      "vs off best": round(Math.max(...rs) / Math.max(...baseline)),
      "req/s median": Math.round(median(rs)),
      "vs off median": round(median(rs) / median(baseline)),
      "p50 ms": median(runs.get(name)!.map((r) => r.p50)),
      "p99 ms": median(runs.get(name)!.map((r) => r.p99)),
      "redis round trips/req": roundTrips.get(name)?.perRequest ?? "-",
      "redis cmds in script/req": roundTrips.get(name)?.commandsInScript ?? "-",
      refused: runs.get(name)!.reduce((n, r) => n + r.refused, 0),
    };
  });
  const consume = await consumeCost();
  console.table(consume);
  report("ratelimit", rows, {
    consume,
    route: "GET /",
    rounds: ROUNDS,
    secondsPerRun: SECONDS,
    connections: CONNECTIONS,
    runs: Object.fromEntries(runs),
  });
} finally {
  await redis.stop();
}

/** Microseconds per `consume` of one client, awaited one after the other (Redis: a round trip each). */
async function consumeCost() {
  const logger = createLogger({ LOG_LEVEL: "silent" });
  const unlimited = { perMinute: 1e12, perHour: 1e12, burst: 1e12 };
  const tiers = { anonymous: unlimited, authenticated: unlimited, premium: unlimited, internal: unlimited };
  const rows = [];
  for (const store of ["memory", "redis"] as const) {
    for (const algorithm of algorithms) {
      const config = loadConfig({ RATE_LIMIT_ALGORITHM: algorithm, REDIS_PREFIX: "bench-consume:" });
      if (store === "redis") config.REDIS_URL = redis.url;
      const limiter = (await openRateLimiter(config, { logger, tiers }))!;
      const n = store === "memory" ? 200_000 : 20_000;
      const who = anonymous("ip:127.0.0.1");
      for (let i = 0; i < n / 10; i++) await limiter.consume(who, "/"); // warm-up
      const started = process.hrtime.bigint();
      for (let i = 0; i < n; i++) await limiter.consume(who, "/");
      const us = Number(process.hrtime.bigint() - started) / n / 1000;
      rows.push({ store, algorithm, "µs/consume": round(us), "consumes/s": Math.round(1e6 / us) });
      await limiter.close();
    }
  }
  return rows;
}

/** One autocannon run against a fresh server process of `setup`. */
async function measure(setup: Setup) {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-bench-"));
  const env = {
    NODE_ENV: "development",
    VALIDATE_RESPONSES: "false",
    LOG_LEVEL: "silent",
    DATA_DIR: dataDir,
    REDIS_PREFIX: "bench:",
    ...setup.env,
  };
  const { server, port } = await startServer(env);
  try {
    const url = `http://127.0.0.1:${port}/`;
    await autocannon(url, 2); // warm-up: JIT, connection pool, script cache
    const before = setup.env.REDIS_URL ? await resetRedisStats() : undefined;
    const result = await autocannon(url, SECONDS);
    const run: Run = {
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      requests: result.requests.total,
      refused: result.non2xx,
    };
    return { run, redis: before === undefined ? undefined : await redisPerRequest(result.requests.total) };
  } finally {
    await stop(server);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startServer(env: Record<string, string>): Promise<{ server: ChildProcess; port: number }> {
  const server = spawn(process.execPath, ["--import", "tsx", "bench/lib/ratelimit-server.ts"], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: server.stdout! })) {
    const m = /^listening (\d+)$/.exec(line);
    if (m) return { server, port: Number(m[1]) };
  }
  throw new Error(`bench server exited with ${server.exitCode}`);
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once("exit", () => resolve());
    server.kill("SIGTERM");
  });
}

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
}

/** autocannon in a process of its own, so the load generator does not share the server's event loop. */
async function autocannon(url: string, seconds: number): Promise<AutocannonResult> {
  const bin = join(root, "node_modules", ".bin", "autocannon");
  const child = spawn(bin, ["-j", "-n", "-c", String(CONNECTIONS), "-d", String(seconds), url], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout!.on("data", (chunk) => {
    out += chunk;
  });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`autocannon exited with ${code}`);
  return JSON.parse(out) as AutocannonResult;
}

async function resetRedisStats(): Promise<true> {
  await redis.command("CONFIG", "RESETSTAT");
  return true;
}

/** Commands per request from INFO commandstats: round trips (EVAL/EVALSHA) and the calls inside the script. */
async function redisPerRequest(requests: number) {
  const stats = await redis.commandStats();
  const calls = (name: string) => stats[name]?.calls ?? 0;
  const trips = calls("eval") + calls("evalsha");
  const inside = ["get", "set", "time", "hgetall", "hset", "hdel", "pexpire"].reduce(
    (n, c) => n + calls(c),
    0,
  );
  return { perRequest: round(trips / requests), commandsInScript: round(inside / requests) };
}

function round(x: number): number {
  return Number(x.toFixed(3));
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}
