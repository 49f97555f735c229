import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import { isDiskFull } from "../../server/store/sqlite/disk-full.js";
import { ServerProcess } from "../helpers/server-process.js";
import { type RunningService, startService } from "../helpers/service.js";
import { fill, integrityCheck, mountTmpfs, unmountSmallDisks } from "../helpers/small-disk.js";
import { createStamp, postStamp, type StampResponse, sha3, verifyOnServer } from "../stamps/helpers.js";
import { TestClient } from "../ws/ws-client.js";

// SQLite's DATA_DIR on a small tmpfs that the test fills with a file (docs/operations.md "When a
// dependency fails"): stamps answer 503 storage_full, what was stamped before still reads and
// verifies, readiness names `storage`; with the file gone stamps are made again without a restart,
// and the database's integrity check finds nothing. Both commit paths: the stamp writer thread's
// connection and the main one. A start on a full disk stops with one line.

afterAll(unmountSmallDisks);

/** How a start of the server process on `env` ended: its one line of stderr, or "started". */
async function startFailure(processEnv: Record<string, string>): Promise<string> {
  const failure = await ServerProcess.start(processEnv).then(
    async (server) => {
      await server.stop();
      return "started";
    },
    (err: Error) => err.message,
  );
  // One line, not a stack trace.
  expect(failure.split("\n")).toHaveLength(1);
  return failure;
}

const env = (dataDir: string, writerThread: boolean) => ({
  DATA_DIR: dataDir,
  SQLITE_WRITER_THREAD: String(writerThread),
  RATE_LIMIT_ENABLED: "false",
});

describe.each([
  ["the stamp writer thread", true],
  ["the main connection", false],
])("SQLite on a full disk, stamps committed by %s", (_, writerThread) => {
  let dataDir: string;
  let service: RunningService | undefined;
  const stamped: StampResponse[] = [];

  beforeAll(async () => {
    dataDir = mountTmpfs();
    service = await startService(env(dataDir, writerThread));
  });
  afterAll(async () => {
    for (const name of ["filler", "filler-2"]) rmSync(join(dataDir, name), { force: true });
    await service?.close();
  });

  const stampNew = async () => {
    stamped.push(await createStamp(service!, `document ${stamped.length} ${Math.random()}`));
  };

  it("answers 503 storage_full with Retry-After, keeps what it had, and recovers when space returns", async () => {
    const svc = service!;
    for (let i = 0; i < 5; i++) await stampNew();
    // An I/O error is a full disk only when the disk is: SQLite does not say ENOSPC.
    const database = join(dataDir, "stampd.db");
    const ioError = { code: "SQLITE_IOERR_WRITE" };
    expect(isDiskFull(ioError, database)).toBe(false);
    const filler = fill(dataDir);
    expect(isDiskFull(ioError, database)).toBe(true);

    const refused = await postStamp(svc, "no room for this one");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(await refused.json()).toMatchObject({ code: "storage_full" });
    // The same refusal on the other transports: gRPC UNAVAILABLE with the wait, a WebSocket error.
    const grpc = createClient(StampService, createGrpcTransport({ baseUrl: svc.grpcUrl }));
    const grpcRefusal = ConnectError.from(
      await grpc.createStamp({ contentHash: `sha3-256:${sha3("grpc")}` }).catch((e) => e),
    );
    expect(grpcRefusal.code).toBe(Code.Unavailable);
    expect(grpcRefusal.metadata.get("grpc-retry-pushback-ms")).toBe("2000");
    const ws = await TestClient.connect(svc.baseUrl);
    const wsRefusal = await ws.request({ type: "stamp", data: { contentHash: `sha3-256:${sha3("ws")}` } });
    ws.close();
    expect(wsRefusal).toMatchObject({ type: "error", data: { code: "unavailable", retryAfter: 2 } });
    const ready = await fetch(`${svc.baseUrl}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({ status: "unavailable", unavailable: ["storage"] });
    // Reads still work, writes do not: degraded, with the store's check failing.
    const health = await fetch(`${svc.baseUrl}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: "degraded", checks: { store: "fail" } });
    for (const stamp of stamped) {
      const read = await fetch(`${svc.baseUrl}/stamps/${stamp.stamp_id}`);
      expect(read.status).toBe(200);
      expect((await read.json()).stamp_json).toEqual(stamp.stamp_json);
      const verified = await verifyOnServer(svc, stamp.stamp_json);
      expect(verified).toMatchObject({ is_valid: true, signature_valid: true });
    }

    rmSync(filler);
    await stampNew();
    await vi.waitFor(async () => expect((await fetch(`${svc.baseUrl}/ready`)).status).toBe(200), {
      timeout: 10_000,
      interval: 100,
    });
    for (const stamp of stamped) {
      expect((await fetch(`${svc.baseUrl}/stamps/${stamp.stamp_id}`)).status).toBe(200);
    }
    await svc.close();
    service = undefined;
    expect(integrityCheck(database)).toBe("ok");
  });

  it("does not start on a full disk: one line, exit code 1; starts with its stamps once space returns", async () => {
    const filler = fill(dataDir);
    const database = join(dataDir, "stampd.db");
    // The integrity check left an empty WAL and its index: the first write at start meets the disk.
    expect(await startFailure(env(dataDir, writerThread))).toMatch(
      /^server exited \(1\): stampd: cannot start: the server's disk is full.* \(storage_full\)$/,
    );
    // Without them (a clean stop), opening the database cannot create the WAL index.
    expect(statSync(`${database}-wal`).size).toBe(0);
    for (const file of [`${database}-wal`, `${database}-shm`]) rmSync(file);
    const more = fill(dataDir, "filler-2");
    expect(await startFailure(env(dataDir, writerThread))).toMatch(
      /^server exited \(1\): stampd: cannot start: the disk holding \S+ is full \(SQLite: SQLITE_IOERR_SHMSIZE\).* \(ENOSPC\)$/,
    );

    rmSync(filler);
    rmSync(more);
    const server = await ServerProcess.start(env(dataDir, writerThread));
    try {
      for (const stamp of stamped) {
        expect((await fetch(`${server.baseUrl}/stamps/${stamp.stamp_id}`)).status).toBe(200);
      }
    } finally {
      await server.stop();
    }
    expect(integrityCheck(join(dataDir, "stampd.db"))).toBe("ok");
  }, 180_000);
});
