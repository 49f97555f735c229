// npm run bench -- ratelimit: what the rate limiter costs. GET /health (exempt from limits, the
// issue's target) and GET / (a cheap route that is charged, weight 1.0) with the limiter off and
// on, each configuration in a stampd process of its own with limits too high to throttle, loaded
// by autocannon in another process, configurations alternating over rounds so drift hits them
// alike. With the Redis store it counts the Redis round trips per request on a redis-server of the
// benchmark's own (INFO commandstats after CONFIG RESETSTAT), and it times RateLimiter.consume
// alone, in this process (steadier than HTTP figures on a busy machine).
import { join } from "node:path";
import { anonymous } from "../server/auth/principal.js";
import { loadConfig } from "../server/config.js";
import { createLogger } from "../server/logger.js";
import { algorithms } from "../server/ratelimit/algorithm.js";
import { openRateLimiter } from "../server/ratelimit/open.js";
import { PrivateRedis } from "../test/helpers/redis.js";
import { autocannon, type LoadRun } from "./lib/autocannon.js";
import { type Candidate, compareHttp } from "./lib/http-compare.js";
import { type Started, stop, tempDir } from "./lib/processes.js";
import { count, type Row, report, round, type Target } from "./lib/report.js";
import { best, median } from "./lib/rounds.js";
import { rounds, seconds } from "./lib/settings.js";
import type { StampdPorts } from "./lib/stampd.js";
import { startStampdProcess } from "./lib/stampd-process.js";

const CONNECTIONS = 32;
const TARGET = 0.95;
const COUNTED_REQUESTS = 2000;

// Each limiter is compared with the same deployment without it: with REDIS_URL set, GET /health
// also pings Redis (server/health/health-checks.ts), a round trip that is no part of the limiter.
const setups = {
  off: { redis: false, env: { RATE_LIMIT_ENABLED: "false" } },
  "redis off": { redis: true, env: { RATE_LIMIT_ENABLED: "false" } },
  "memory token_bucket": { redis: false, env: {} },
  "memory sliding_window": { redis: false, env: { RATE_LIMIT_ALGORITHM: "sliding_window" } },
  "redis token_bucket": { redis: true, env: {} },
  "redis sliding_window": { redis: true, env: { RATE_LIMIT_ALGORITHM: "sliding_window" } },
} as const;
type Setup = keyof typeof setups;
const routes: { path: string; setups: Setup[] }[] = [
  { path: "/health", setups: ["off", "memory token_bucket", "redis off", "redis token_bucket"] },
  { path: "/", setups: Object.keys(setups) as Setup[] },
];

const dir = tempDir();
const redis = await PrivateRedis.start();
const servers = {} as Record<Setup, Started<StampdPorts>>;

try {
  await Promise.all(
    (Object.keys(setups) as Setup[]).map(async (name) => {
      const slug = name.replace(" ", "-");
      const { env } = setups[name];
      const extra = setups[name].redis
        ? { ...env, REDIS_URL: redis.url, REDIS_PREFIX: `bench-${slug}:` }
        : env;
      servers[name] = await startStampdProcess(join(dir.path, slug), extra);
    }),
  );
  const settings = { rounds: rounds(3), seconds: seconds(3), warmupSeconds: seconds(1) };
  const runs: Record<string, Partial<Record<Setup, LoadRun[]>>> = {};
  const rows: Row[] = [];
  for (const route of routes) {
    const candidates = Object.fromEntries(
      route.setups.map((setup) => [setup, { url: urlOf(setup, route.path), connections: CONNECTIONS }]),
    ) as Record<Setup, Candidate>;
    const measured: Partial<Record<Setup, LoadRun[]>> = await compareHttp(candidates, settings);
    runs[route.path] = measured;
    for (const setup of route.setups) rows.push(limiterRow(route.path, setup, measured));
  }
  const targets = (["memory token_bucket", "redis token_bucket"] as const).map((setup) =>
    healthTarget(setup, runs["/health"]!),
  );
  const roundTrips: Record<string, RoundTrips> = {};
  for (const setup of ["redis token_bucket", "redis sliding_window"] as const) {
    roundTrips[setup] = await countRoundTrips(servers[setup].ready.http);
    targets.push(roundTripTarget(setup, roundTrips[setup]));
  }
  const consume = await consumeCost();
  console.table(consume);
  report("ratelimit", {
    rows,
    targets,
    note:
      "/health is exempt from limits (it is only checked against the exempt list); GET / is charged " +
      "(weight 1.0). Round trips: EVAL/EVALSHA calls per request; the limiter's script runs inside Redis.",
    consume,
    connections: CONNECTIONS,
    ...settings,
    roundTrips,
    runs,
  });
} finally {
  await Promise.all(Object.values(servers).map((s) => stop(s.process)));
  await redis.stop();
  dir.cleanup();
}

function urlOf(setup: Setup, path: string): string {
  return `http://127.0.0.1:${servers[setup].ready.http}${path}`;
}

/** The set-up without a limiter that `setup` is measured against: the same store's deployment. */
function baselineOf(setup: Setup): Setup {
  return setups[setup].redis ? "redis off" : "off";
}

function limiterRow(path: string, setup: Setup, runs: Partial<Record<Setup, LoadRun[]>>): Row {
  const rps = runs[setup]!.map((r) => r.rps);
  const off = runs[baselineOf(setup)]!.map((r) => r.rps);
  return {
    route: path,
    limiter: setup,
    "req/s best": Math.round(best(rps)),
    baseline: baselineOf(setup),
    "vs off best": round(best(rps) / best(off)),
    "req/s median": Math.round(median(rps)),
    "vs off median": round(median(rps) / median(off)),
    "p50 ms": median(runs[setup]!.map((r) => r.p50Ms)),
    "p99 ms": median(runs[setup]!.map((r) => r.p99Ms)),
  };
}

function healthTarget(setup: Setup, runs: Partial<Record<Setup, LoadRun[]>>): Target {
  const on = best(runs[setup]!.map((r) => r.rps));
  const off = best(runs[baselineOf(setup)]!.map((r) => r.rps));
  const value = round(on / off);
  return {
    what: `GET /health req/s, limiter on (${setup}) vs off (${baselineOf(setup)})`,
    target: `≥ ${TARGET} × limiter off`,
    value,
    unit: "×",
    stampd: `${count(on)} req/s`,
    baseline: `${count(off)} req/s`,
    met: value >= TARGET,
  };
}

function roundTripTarget(setup: Setup, trips: RoundTrips): Target {
  return {
    what: `Redis round trips per charged request (GET /, ${setup.replace("redis ", "")})`,
    target: "1 per request",
    value: trips.perRequest,
    unit: "per request",
    stampd: `${trips.allCommandsPerRequest} Redis commands/req, the script's included`,
    baseline: "",
    met: trips.perRequest === 1,
  };
}

interface RoundTrips {
  perRequest: number;
  allCommandsPerRequest: number;
}

/**
 * Round trips (EVAL/EVALSHA) and all commands per charged request, from INFO commandstats around a
 * run of an exact number of requests (a timed run leaves some in flight, uncounted, at its end).
 */
async function countRoundTrips(port: number): Promise<RoundTrips> {
  await redis.command("CONFIG", "RESETSTAT");
  const url = `http://127.0.0.1:${port}/`;
  const run = await autocannon({ url, connections: CONNECTIONS, amount: COUNTED_REQUESTS });
  if (run.requests !== COUNTED_REQUESTS || run.non2xx + run.errors > 0) {
    throw new Error(`round-trip count: ${run.requests} of ${COUNTED_REQUESTS} requests answered 2xx`);
  }
  const requests = run.requests;
  const stats = await redis.commandStats();
  const calls = (name: string) => stats[name]?.calls ?? 0;
  // Leaves out this benchmark's own connections (INFO, CONFIG RESETSTAT, ioredis's CLIENT SETINFO).
  const all = Object.entries(stats)
    .filter(([name]) => !/^(info|config|client)/.test(name))
    .reduce((n, [, s]) => n + s.calls, 0);
  return {
    perRequest: round((calls("eval") + calls("evalsha")) / requests),
    allCommandsPerRequest: round(all / requests),
  };
}

/** Microseconds per `consume` of one client, awaited one after the other (Redis: a round trip each). */
async function consumeCost() {
  const logger = createLogger({ LOG_LEVEL: "silent" });
  const unlimited = { perMinute: 1e12, perHour: 1e12, burst: 1e12 };
  const tiers = { anonymous: unlimited, authenticated: unlimited, premium: unlimited, internal: unlimited };
  const rows: Row[] = [];
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
