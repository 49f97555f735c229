import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import { ServerProcess } from "../helpers/server-process.js";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";
import { createSchema, databaseUrl, type TestSchema } from "../store/postgres.js";
import {
  askBundle,
  auditAfterFault,
  type BundleAnswer,
  bundlesOrUnavailable,
  expectVerified,
  type Stamped,
  stampDocument,
  untilSealed,
} from "./fault-answers.js";
import { publishedTrust } from "./sigstore-js.js";

// Short, so a stall becomes an answer quickly here; the default is 5000.
const STORE_TIMEOUT_MS = 1500;
// A request may wait for a pooled connection, then for a few queries of the append: a few deadlines.
const ANSWER_BOUND_MS = 6 * STORE_TIMEOUT_MS;
const PER_FAULT = 24;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

const statusOf = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

/**
 * The stamp log's new write path (a bundle's first request appends the stamp) while PostgreSQL is
 * cut or stalled, as a failover or a frozen host looks from stampd's side: two real server
 * processes reach PostgreSQL through a TCP proxy the test controls, with first-time bundle requests
 * in flight on both. Every answer is a bundle sigstore-js verifies or 503 `store_unavailable` with
 * Retry-After, neither process dies, and afterwards every stamp's bundle verifies and the stamp log
 * (read by the independent tile reader) holds each stamp once.
 */
describe("Sigstore bundles while PostgreSQL is cut or stalled, on two instances", () => {
  let schema: TestSchema;
  // One proxy per instance: a fault of both is an outage, a fault of one a partition.
  const proxies: TcpProxy[] = [];
  const proxy = {
    cut: () => {
      for (const p of proxies) p.cut();
    },
    stall: () => {
      for (const p of proxies) p.stall();
    },
    restore: () => Promise.all(proxies.map((p) => p.restore())),
  };
  let dataDir: string;
  const instances: ServerProcess[] = [];
  const stamps: Stamped[] = [];
  const answered: BundleAnswer[] = [];

  beforeAll(async () => {
    schema = await createSchema();
    const target = new URL(databaseUrl);
    dataDir = mkdtempSync(join(tmpdir(), "stampd-sigstore-outage-"));
    const env = {
      DATA_DIR: dataDir,
      RATE_LIMIT_ENABLED: "false",
      STORE_TIMEOUT_MS: String(STORE_TIMEOUT_MS),
      BATCH_INTERVAL_MS: "200",
      SERVICE_BASE_URL: "https://stampd.example",
    };
    for (let i = 0; i < 2; i++) {
      const own = await startTcpProxy({
        target: { host: target.hostname, port: Number(target.port || 5432) },
      });
      proxies.push(own);
      const viaProxy = new URL(schema.url);
      viaProxy.port = String(own.port);
      instances.push(await ServerProcess.start({ ...env, DATABASE_URL: viaProxy.toString() }));
    }
    const [a] = instances as [ServerProcess];
    for (let i = 0; i < 3 * PER_FAULT + 1; i++) stamps.push(await stampDocument(a.baseUrl));
    await untilSealed(a.baseUrl, stamps);
    // One bundle of each instance first: the faults meet appends, not a first request's start-up.
    for (const instance of instances) {
      const warm = await askBundle(instance.baseUrl, stamps.at(-1)!.id);
      expect(warm.status).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    for (const instance of instances) await instance.stop("SIGKILL");
    for (const p of proxies) await p.close();
    await schema?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /**
   * First-time bundle requests for `batch`, each stamp asked of both instances at once, spread
   * over `spreadMs` so that some are in flight when the fault begins.
   */
  const askAll = (batch: readonly Stamped[], spreadMs: number) =>
    Promise.all(
      batch.flatMap((stamp, i) =>
        instances.map(async (instance) => {
          await sleep((i * spreadMs) / batch.length);
          return askBundle(instance.baseUrl, stamp.id);
        }),
      ),
    );

  it("answers bundles or 503 store_unavailable while cut with appends in flight, REST and gRPC", async () => {
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const batch = stamps.slice(0, PER_FAULT);
    const asked = askAll(batch, 1500);
    await sleep(300);
    proxy.cut();
    let grpcRefusal: unknown;
    try {
      await until(
        "ready says unavailable",
        async () => (await statusOf(`${a.baseUrl}/ready`)).status === 503,
      );
      const grpc = createClient(
        StampService,
        createGrpcTransport({ baseUrl: `http://127.0.0.1:${b.grpcPort}` }),
      );
      grpcRefusal = await grpc.getSigstoreBundle({ stampId: stamps[PER_FAULT]!.id }).catch((e: unknown) => e);
      // The trusted root reads the store too (the outside TSA chains): the same answer, not a 500.
      const root = await fetch(`${b.baseUrl}/sigstore/trusted_root.json`);
      expect({
        status: root.status,
        body: await root.json(),
        retryAfter: root.headers.get("retry-after"),
      }).toMatchObject({ status: 503, body: { code: "store_unavailable" }, retryAfter: "2" });
      expect(await statusOf(`${a.baseUrl}/ready`)).toEqual({
        status: 503,
        body: { status: "unavailable", unavailable: ["store"] },
      });
      const health = await statusOf(`${a.baseUrl}/health`);
      expect(health.status).toBe(503);
      expect(health.body.checks).toMatchObject({ store: "fail" });
      answered.push(...(await asked));
    } finally {
      await proxy.restore();
    }
    expect(grpcRefusal).toBeInstanceOf(ConnectError);
    expect((grpcRefusal as ConnectError).code).toBe(Code.Unavailable);
    expect((grpcRefusal as ConnectError).metadata.get("grpc-retry-pushback-ms")).toBe("2000");
    const bundles = bundlesOrUnavailable(answered, ANSWER_BOUND_MS);
    expect(answered.length - bundles.length).toBeGreaterThan(0);
    for (const instance of instances) {
      await until("ready again", async () => (await statusOf(`${instance.baseUrl}/ready`)).status === 200);
    }
    await expectVerified(bundles, stamps, await publishedTrust(a.baseUrl));
  }, 90_000);

  it("answers bundles or 503 store_unavailable within the deadline while PostgreSQL stalls", async () => {
    const [a] = instances as [ServerProcess];
    const batch = stamps.slice(PER_FAULT, 2 * PER_FAULT);
    const asked = askAll(batch, 1000);
    await sleep(200);
    proxy.stall();
    let during: BundleAnswer[];
    try {
      during = await asked;
      const grpc = createClient(
        StampService,
        createGrpcTransport({ baseUrl: `http://127.0.0.1:${a.grpcPort}` }),
      );
      const refused = await grpc.getSigstoreBundle({ stampId: batch.at(-1)!.id }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ConnectError);
      expect((refused as ConnectError).code).toBe(Code.Unavailable);
    } finally {
      await proxy.restore();
    }
    answered.push(...during);
    const bundles = bundlesOrUnavailable(during, ANSWER_BOUND_MS);
    expect(during.length - bundles.length).toBeGreaterThan(0);
    await until("ready again", async () => (await statusOf(`${a.baseUrl}/ready`)).status === 200);
    await expectVerified(bundles, stamps, await publishedTrust(a.baseUrl));
  }, 90_000);

  it("keeps serving bundles on one instance while the other's link to PostgreSQL is stalled mid-append", async () => {
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const batch = stamps.slice(2 * PER_FAULT, 3 * PER_FAULT);
    const [forA, forB] = [batch.slice(0, 8), batch.slice(8)];
    const onA = Promise.all(forA.map((s) => askBundle(a.baseUrl, s.id)));
    await sleep(20);
    proxies[0]!.stall();
    const fromB: BundleAnswer[] = [];
    try {
      const fromA = await onA;
      answered.push(...fromA);
      bundlesOrUnavailable(fromA, ANSWER_BOUND_MS);
      // B's link is fine: if A's append held the log's lock when its link froze, PostgreSQL ends
      // A's session (idle_in_transaction_session_timeout, 2 x STORE_TIMEOUT_MS) and B goes on.
      for (const stamp of forB) {
        await until("B answers the bundle while A is cut off", async () => {
          const answer = await askBundle(b.baseUrl, stamp.id);
          fromB.push(answer);
          return answer.status === 200;
        });
      }
      await until(
        "A not ready while cut off",
        async () => (await statusOf(`${a.baseUrl}/ready`)).status === 503,
      );
    } finally {
      await proxies[0]!.restore();
    }
    answered.push(...fromB);
    bundlesOrUnavailable(fromB, ANSWER_BOUND_MS);
    await until("A ready again", async () => (await statusOf(`${a.baseUrl}/ready`)).status === 200);
    await expectVerified(fromB, stamps, await publishedTrust(b.baseUrl));
  }, 90_000);

  it("afterwards: no process exited, every bundle verifies from either instance, the stamp log holds each stamp once", async () => {
    for (const instance of instances) {
      expect(await Promise.race([instance.exited.then(() => "exited"), sleep(10).then(() => "alive")])).toBe(
        "alive",
      );
      expect(instance.logs.filter((l) => l.level >= 60).map((l) => l.msg)).toEqual([]);
    }
    const [a, b] = instances as [ServerProcess, ServerProcess];
    await auditAfterFault(a.baseUrl, stamps, answered);
    await auditAfterFault(b.baseUrl, stamps, answered);
  }, 90_000);
});
