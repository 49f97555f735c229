import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import { ServerProcess } from "../helpers/server-process.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { createSchema, databaseUrl, type TestSchema } from "../store/postgres.js";

// Short, so a stall becomes an answer quickly here; the default is 5000.
const STORE_TIMEOUT_MS = 1500;
// The longest any request may take while PostgreSQL is cut or stalled: a few deadlines (a request
// may wait for a pooled connection, then for its query), never a hang.
const ANSWER_BOUND_MS = 4 * STORE_TIMEOUT_MS;

interface Answer {
  status: number;
  ms: number;
  body: { stamp_id?: string; code?: string; detail?: string };
  retryAfter: string | null;
}

/** POST /stamps with a new small document, as `curl -F file=@…` sends it. */
async function stamp(instance: ServerProcess): Promise<Answer> {
  const form = new FormData();
  form.set("file", new Blob([randomBytes(32)]), "doc.bin");
  const started = performance.now();
  const res = await fetch(`${instance.baseUrl}/stamps`, { method: "POST", body: form });
  const body = (await res.json()) as Answer["body"];
  return {
    status: res.status,
    ms: performance.now() - started,
    body,
    retryAfter: res.headers.get("retry-after"),
  };
}

async function ready(instance: ServerProcess): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${instance.baseUrl}/ready`);
  return { status: res.status, body: await res.json() };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stamps from `clients` loops at once until `stop` resolves; every answer is kept. */
async function load(instance: ServerProcess, clients: number, stop: Promise<void>): Promise<Answer[]> {
  let stopped = false;
  void stop.then(() => {
    stopped = true;
  });
  const answers: Answer[] = [];
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stopped) answers.push(await stamp(instance));
    }),
  );
  return answers;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every answer is a 201 or a 503 store_unavailable with Retry-After, each within the bound. */
function expectOnlyStampsOrUnavailable(answers: Answer[]): void {
  for (const a of answers) {
    if (a.status === 201) continue;
    expect({ status: a.status, code: a.body.code, retryAfter: a.retryAfter }).toEqual({
      status: 503,
      code: "store_unavailable",
      retryAfter: "2",
    });
  }
  expect(Math.max(...answers.map((a) => a.ms))).toBeLessThan(ANSWER_BOUND_MS);
}

/**
 * PostgreSQL going away and coming back, as a failover or a restart looks from stampd's side: two
 * real server processes reach PostgreSQL through a TCP proxy the test cuts, stalls and restores.
 * Neither process may die; every request gets an answer within a few deadlines (201, or 503
 * `store_unavailable` with Retry-After); readiness says `unavailable` naming the store during the
 * outage and `ready` again after it without a restart; every stamp acknowledged stays stored.
 */
describe("PostgreSQL cut, stalled and restored under load", () => {
  let schema: TestSchema;
  let proxy: TcpProxy;
  let dataDir: string;
  const instances: ServerProcess[] = [];
  const acknowledged = new Set<string>();

  beforeAll(async () => {
    schema = await createSchema();
    const target = new URL(databaseUrl);
    proxy = await startTcpProxy({ target: { host: target.hostname, port: Number(target.port || 5432) } });
    const viaProxy = new URL(schema.url);
    viaProxy.port = String(proxy.port);
    dataDir = mkdtempSync(join(tmpdir(), "stampd-outage-"));
    const env = {
      DATABASE_URL: viaProxy.toString(),
      DATA_DIR: dataDir,
      RATE_LIMIT_ENABLED: "false",
      STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
      SERVICE_BASE_URL: "https://stampd.example",
    };
    // One after the other, as a rolling start: the first makes the tables and the keys.
    instances.push(await ServerProcess.start(env));
    instances.push(await ServerProcess.start(env));
  }, 120_000);

  afterAll(async () => {
    for (const instance of instances) await instance.stop("SIGKILL");
    await proxy?.close();
    await schema?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const remember = (answers: Answer[]) => {
    for (const a of answers) if (a.status === 201 && a.body.stamp_id) acknowledged.add(a.body.stamp_id);
  };

  it("answers 503 store_unavailable with Retry-After while cut with requests in flight, and serves again once restored", async () => {
    const [a, b] = instances as [ServerProcess, ServerProcess];
    let endLoad!: () => void;
    const stop = new Promise<void>((resolve) => {
      endLoad = resolve;
    });
    const loads = Promise.all([a, b].map((i) => load(i, 4, stop)));
    await sleep(1000);
    proxy.cut();
    await sleep(1000);
    // Both instances know the store is gone: a load balancer would stop routing to them.
    for (const instance of [a, b]) {
      await until("ready says unavailable", async () => (await ready(instance)).status === 503);
      expect(await ready(instance)).toEqual({
        status: 503,
        body: { status: "unavailable", unavailable: ["store"] },
      });
      const health = await fetch(`${instance.baseUrl}/health`);
      expect(health.status).toBe(503);
      expect(((await health.json()) as { checks: { store: string } }).checks.store).toBe("fail");
    }
    await proxy.restore();
    // Back without a restart: readiness finds PostgreSQL again by itself.
    for (const instance of [a, b]) {
      await until("ready again", async () => (await ready(instance)).status === 200);
    }
    await sleep(500);
    endLoad();
    const answers = (await loads).flat();
    remember(answers);
    expectOnlyStampsOrUnavailable(answers);
    expect(answers.filter((x) => x.status === 503).length).toBeGreaterThan(0);
    expect((await stamp(a)).status).toBe(201);
    expect((await stamp(b)).status).toBe(201);
    for (const instance of instances) expect(instance.logs.some((l) => l.level >= 60)).toBe(false);
  }, 90_000);

  it("answers within the deadline while PostgreSQL stalls (sockets open, nothing flows), on REST, gRPC and WebSocket", async () => {
    const [a] = instances as [ServerProcess];
    const stamped = await stamp(a);
    expect(stamped.status).toBe(201);
    remember([stamped]);
    proxy.stall();
    try {
      const answers = await Promise.all(Array.from({ length: 12 }, () => stamp(a)));
      expectOnlyStampsOrUnavailable(answers);
      expect(answers.every((x) => x.status === 503)).toBe(true);
      expect((await ready(a)).body).toEqual({ status: "unavailable", unavailable: ["store"] });

      const grpc = createClient(
        StampService,
        createGrpcTransport({ baseUrl: `http://127.0.0.1:${a.grpcPort}` }),
      );
      const refused = await grpc.getStamp({ stampId: stamped.body.stamp_id! }).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(ConnectError);
      expect((refused as ConnectError).code).toBe(Code.Unavailable);
      expect((refused as ConnectError).metadata.get("grpc-retry-pushback-ms")).toBe("2000");

      const reply = await wsVerify(a, stamped.body.stamp_id!);
      expect(reply).toMatchObject({ type: "error", data: { code: "unavailable", retryAfter: 2 } });
    } finally {
      await proxy.restore();
    }
    await until("ready again", async () => (await ready(a)).status === 200);
    expect((await stamp(a)).status).toBe(201);
  }, 90_000);

  it("loses no acknowledged stamp: all are stored after the cuts, the stall and their recoveries", async () => {
    for (const instance of instances) {
      expect(await Promise.race([instance.exited.then(() => "exited"), sleep(10).then(() => "alive")])).toBe(
        "alive",
      );
    }
    expect(acknowledged.size).toBeGreaterThan(20);
    const [a] = instances as [ServerProcess];
    const missing: string[] = [];
    for (const id of acknowledged) {
      const res = await fetch(`${a.baseUrl}/stamps/${id}`);
      await res.arrayBuffer();
      if (res.status !== 200) missing.push(`${id}: ${res.status}`);
    }
    expect(missing).toEqual([]);
  }, 60_000);
});

/** One WebSocket `verify` request; resolves with the reply frame. */
async function wsVerify(instance: ServerProcess, stampId: string): Promise<unknown> {
  const socket = new WebSocket(instance.wsUrl);
  try {
    await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
    const reply = new Promise<unknown>((resolve) => {
      socket.on("message", (data) => {
        const frame = JSON.parse(String(data)) as { id?: string };
        if (frame.id === "v1") resolve(frame);
      });
    });
    socket.send(
      JSON.stringify({
        type: "verify",
        id: "v1",
        data: { stampId, contentHash: `sha256:${"ab".repeat(32)}` },
      }),
    );
    return await reply;
  } finally {
    socket.close();
  }
}
