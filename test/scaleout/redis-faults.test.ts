import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { deleteKeys, redisUrl, uniquePrefix } from "../helpers/redis.js";
import { ServerProcess } from "../helpers/server-process.js";
import { type RunningService, startService } from "../helpers/service.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { recordEvents } from "./cluster.js";

// Redis behind a TCP proxy the test cuts (every connection reset, new ones refused), stalls
// (sockets open, nothing answered) and restores, under instances on SQLite that share Redis for
// rate limits and events (docs/operations.md "When a dependency fails"). An anonymous client may
// stamp twice in a burst (5 tokens, 2 a stamp), so its third stamp tells whose limit applied.

// The default: on a busy machine a shorter one times out replies that are there but not yet read.
const TIMEOUT_MS = 1000;
/**
 * Far above what an answer takes (a request waits for Redis at most REDIS_TIMEOUT_MS), yet far
 * below a hang: a stalled Redis without deadlines holds a request until the socket dies.
 */
const ANSWER_BOUND_MS = 20 * TIMEOUT_MS;

let proxy: TcpProxy;
const prefix = uniquePrefix();
/** `local` (the default), and `open`. */
let local: RunningService;
let open: RunningService;
let other: RunningService;
let eventsOfOther: AnyDomainEvent[];

beforeAll(async () => {
  const { hostname, port } = new URL(redisUrl);
  proxy = await startTcpProxy({ target: { host: hostname, port: Number(port || 6379) } });
  const env = {
    REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
    REDIS_PREFIX: prefix,
    REDIS_TIMEOUT_MS: String(TIMEOUT_MS),
  };
  local = await startService(env);
  open = await startService({ ...env, RATE_LIMIT_REDIS_FAILURE: "open" });
  other = await startService(env);
  eventsOfOther = recordEvents(other);
  // A first stamp loads what stamping needs; on a busy machine that can outlast a Redis deadline.
  for (const instance of [local, open, other]) await stamp(instance, newClient());
});

afterAll(async () => {
  await proxy?.restore();
  for (const instance of [local, open, other]) await instance?.close();
  await proxy?.close();
  await deleteKeys(redisUrl, prefix);
});

let clients = 0;
/** A client address no other request of this file uses. */
const newClient = () => `198.51.100.${++clients}`;

interface Answer {
  status: number;
  limit: string | null;
  id?: string;
}

/** POST /stamps as `client`; fails the test if no answer comes within the bound. */
async function stamp(instance: RunningService, client: string): Promise<Answer> {
  const form = new FormData();
  form.append("file", new Blob([`${client} ${Math.random()}`]), "doc.txt");
  const res = await fetch(`${instance.baseUrl}/stamps`, {
    method: "POST",
    body: form,
    headers: { "x-forwarded-for": client },
    signal: AbortSignal.timeout(ANSWER_BOUND_MS),
  });
  const body = (await res.json()) as { stamp_id?: string };
  return { status: res.status, limit: res.headers.get("x-ratelimit-limit"), id: body.stamp_id };
}

/** Three stamps in a row of one new client: its third is refused only where a limit applies. */
async function threeStamps(instance: RunningService): Promise<Answer[]> {
  const client = newClient();
  const answers: Answer[] = [];
  for (let i = 0; i < 3; i++) answers.push(await stamp(instance, client));
  return answers;
}

/** One new client's stamps, one on each instance in turn: shared limits refuse the third. */
async function oneClientOn(...instances: RunningService[]): Promise<number[]> {
  const client = newClient();
  const statuses: number[] = [];
  for (const instance of instances) statuses.push((await stamp(instance, client)).status);
  return statuses;
}

async function redisCheck(instance: RunningService): Promise<string | undefined> {
  const res = await fetch(`${instance.baseUrl}/health`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
  return ((await res.json()) as { checks: { redis?: string } }).checks.redis;
}

/** Waits until every instance's /health finds Redis again: the clients reconnect by themselves. */
async function untilRedisAnswers(): Promise<void> {
  await vi.waitFor(
    async () => {
      for (const instance of [local, open, other]) expect(await redisCheck(instance)).toBe("ok");
    },
    { timeout: 15_000, interval: 100 },
  );
}

/** Stamps on `local` until `other` receives one's event through Redis: pub/sub works again. */
async function untilEventsCross(): Promise<void> {
  await vi.waitFor(
    async () => {
      const { id } = await stamp(local, newClient());
      await new Promise((r) => setTimeout(r, 50));
      expect(eventsOfOther.some((e) => e.type === "stamp_created" && e.data.id === id)).toBe(true);
    },
    { timeout: 15_000, interval: 100 },
  );
}

describe("instances sharing Redis when Redis fails and comes back", () => {
  it("share limits and events while Redis answers", async () => {
    // One budget over the instances: the third stamp is refused wherever it is made.
    expect(await oneClientOn(local, other, local)).toEqual([201, 201, 429]);
    await untilEventsCross();
  });

  it("a cut with requests in flight: every request answered, limits per policy, /health names redis", async () => {
    // Held by a stall first, so that the cut finds charges sent to Redis and not yet answered.
    proxy.stall();
    const inFlight = Array.from({ length: 20 }, () => stamp(local, newClient()));
    await new Promise((r) => setTimeout(r, TIMEOUT_MS / 4));
    proxy.cut();
    for (const answer of await Promise.all(inFlight)) expect(answer.status).toBe(201);

    // local: this instance's memory limits the client (with the headers of the tier).
    const limited = await threeStamps(local);
    expect(limited.map((a) => a.status)).toEqual([201, 201, 429]);
    expect(limited[0]!.limit).toBe("20");
    // open: no limit, no rate-limit headers.
    const unlimited = await threeStamps(open);
    expect(unlimited.map((a) => [a.status, a.limit])).toEqual([
      [201, null],
      [201, null],
      [201, null],
    ]);

    expect(await redisCheck(local)).toBe("fail");
    const health = await (await fetch(`${local.baseUrl}/health`)).json();
    expect(health.status).toBe("degraded");

    // At most once: what is published while Redis is cut reaches no other instance.
    const { id } = await stamp(local, newClient());
    await proxy.restore();
    await untilRedisAnswers();
    await untilEventsCross();
    expect(eventsOfOther.some((e) => e.type === "stamp_created" && e.data.id === id)).toBe(false);
  });

  it("a stall: every request answered within the bound, limits per policy, then Redis's limits again", async () => {
    proxy.stall();
    const inFlight = Array.from({ length: 10 }, () => stamp(local, newClient()));
    for (const answer of await Promise.all(inFlight)) expect(answer.status).toBe(201);
    expect((await threeStamps(local)).map((a) => a.status)).toEqual([201, 201, 429]);
    expect((await threeStamps(open)).map((a) => a.status)).toEqual([201, 201, 201]);
    expect(await redisCheck(local)).toBe("fail");

    await proxy.restore();
    await untilRedisAnswers();
    await untilEventsCross();
    // Shared again: a budget spent on one instance is spent on the others.
    expect(await oneClientOn(local, open, other)).toEqual([201, 201, 429]);
  });

  it("a start while Redis is unreachable stops with one line and exit code 1", async () => {
    proxy.cut();
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-redis-down-"));
    const failure = await ServerProcess.start({
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      DATA_DIR: dataDir,
    })
      .then(
        async (server) => {
          await server.stop();
          return "started";
        },
        (err: Error) => err.message,
      )
      .finally(() => rmSync(dataDir, { recursive: true, force: true }));
    await proxy.restore();
    expect(failure).toMatch(
      /^server exited \(1\): stampd: cannot start: cannot reach REDIS_URL for \w+: connect ECONNREFUSED \S+ \(ECONNREFUSED\)$/,
    );
  });

  it("a cut while idle (a Redis restart): events and shared limits resume without a restart", async () => {
    proxy.cut();
    await proxy.restore();
    await untilRedisAnswers();
    await untilEventsCross();
    expect(await oneClientOn(other, local, open)).toEqual([201, 201, 429]);
  });
});
