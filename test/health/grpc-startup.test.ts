import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClientReadableStream, status as Status } from "@grpc/grpc-js";
import pg from "pg";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { grpcJsClient, unary } from "../helpers/grpc-js.js";
import { ServerProcess } from "../helpers/server-process.js";
import { createSchema, type TestSchema } from "../store/postgres.js";

// The advisory lock server/store/postgres/migrate.ts takes around the migrations of a schema: while
// this test holds it, the real server process is held in start-up, as behind a long migration.
const migrationLock = "SELECT pg_advisory_lock($1::int, hashtext(current_schema()))";
const migrationUnlock = "SELECT pg_advisory_unlock($1::int, hashtext(current_schema()))";
const lockClass = 0x57a3d;

const dataDir = mkdtempSync(join(tmpdir(), "stampd-grpc-startup-"));
let schema: TestSchema;
beforeAll(async () => {
  schema = await createSchema();
});
afterAll(async () => {
  await schema.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function ready(baseUrl: string) {
  const res = await fetch(`${baseUrl}/ready`);
  return { status: res.status, body: await res.json() };
}

it("answers gRPC health NOT_SERVING and other calls UNAVAILABLE while migrations wait, then serves on the same port", async () => {
  const holder = new pg.Client({ connectionString: schema.url });
  await holder.connect();
  await holder.query(migrationLock, [lockClass]);
  const server = await ServerProcess.start(
    { DATA_DIR: dataDir, DATABASE_URL: schema.url },
    { untilReady: false },
  );
  const health = grpcJsClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", server.grpcPort);
  const stamps = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", server.grpcPort);
  const watch = health.Watch!({ service: "" }) as ClientReadableStream<{ status: string }>;
  try {
    // Held for sure: the server's migration session waits for the lock this test holds.
    await vi.waitFor(
      async () => {
        const { rows } = await holder.query(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted",
        );
        expect(rows[0].n).toBeGreaterThan(0);
      },
      { timeout: 30_000, interval: 100 },
    );
    const watched: string[] = [];
    const sawServing = new Promise<void>((resolve) =>
      watch.on("data", ({ status }) => {
        watched.push(status);
        if (status === "SERVING") resolve();
      }),
    );
    watch.on("error", () => {});

    expect(await ready(server.baseUrl)).toEqual({ status: 503, body: { status: "starting" } });
    for (const service of ["", "svc.v1.StampService"]) {
      expect((await unary<{ status: string }>(health, "Check", { service })).status).toBe("NOT_SERVING");
    }
    await expect(unary(health, "Check", { service: "other.v1.Service" })).rejects.toMatchObject({
      code: Status.NOT_FOUND,
    });
    expect((await unary<{ status: string }>(stamps, "HealthCheck", { service: "" })).status).toBe(
      "NOT_SERVING",
    );
    const starting = unary(stamps, "GetStamp", { stamp_id: "stp_01J9Z8K3M4N5P6Q7R8S9T0V1W2" });
    await expect(starting).rejects.toMatchObject({
      code: Status.UNAVAILABLE,
      details: "the service is starting; retry shortly",
    });
    await vi.waitFor(() => expect(watched).toEqual(["NOT_SERVING"]));
    expect(server.logs.map((l) => l.msg)).not.toContain("ready");

    await holder.query(migrationUnlock, [lockClass]);
    await vi.waitFor(async () => expect((await ready(server.baseUrl)).status).toBe(200), {
      timeout: 30_000,
      interval: 100,
    });
    expect((await unary<{ status: string }>(health, "Check", { service: "" })).status).toBe("SERVING");
    // The Watch opened while starting follows the same readiness as /ready.
    await sawServing;
    expect(watched).toEqual(["NOT_SERVING", "SERVING"]);
    // The real handlers, on the port that has been listening all along.
    await expect(
      unary(stamps, "GetStamp", { stamp_id: "stp_01J9Z8K3M4N5P6Q7R8S9T0V1W2" }),
    ).rejects.toMatchObject({ code: Status.NOT_FOUND });
    expect(server.logs.filter((l) => l.msg.startsWith("gRPC listening on"))).toHaveLength(1);
  } finally {
    watch.cancel();
    health.close();
    stamps.close();
    expect(await server.stop("SIGTERM")).toEqual({ code: 0, signal: null });
    await holder.end();
  }
});

it("fails in one line, before migrations, when the gRPC port is taken", async () => {
  const first = await ServerProcess.start({ DATA_DIR: dataDir, DATABASE_URL: schema.url });
  // Start-up held at the migrations, as above: only a port bound before them can fail here.
  const holder = new pg.Client({ connectionString: schema.url });
  await holder.connect();
  await holder.query(migrationLock, [lockClass]);
  try {
    const env = { DATA_DIR: dataDir, DATABASE_URL: schema.url, GRPC_PORT: String(first.grpcPort) };
    await expect(ServerProcess.start(env, { timeoutMs: 30_000 })).rejects.toThrow(
      /^server exited \(1\): stampd: cannot start: [^\n]*\(EADDRINUSE\)$/,
    );
  } finally {
    await holder.end();
    await first.stop("SIGTERM");
  }
});
