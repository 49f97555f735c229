import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as grpc from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { build } from "../../server/build.js";
import { loadConfig } from "../../server/config.js";
import { Readiness } from "../../server/health/readiness.js";
import { listen, shutdownGracefully } from "../../server/lifecycle.js";
import { createHttpServer } from "../../server/rest/http-server.js";
import { startupResponder } from "../../server/rest/startup.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { grpcJsClient, unary } from "../helpers/grpc-js.js";
import { startService } from "../helpers/service.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function get(base: string, path: string) {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
}

describe("while the service starts", () => {
  it("answers /ready and /health with 503 starting until migrations are done, then ready", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-ready-"));
    dirs.push(dataDir);
    const config = loadConfig({
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      DATA_DIR: dataDir,
      BATCH_INTERVAL_MS: "3600000",
    });
    // A store whose migrations wait until the test lets them run.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const store = new SqliteStore(join(dataDir, "stampd.db"));
    const migrate = store.migrate.bind(store);
    store.migrate = () => gate.then(migrate);

    // As server/main.ts does: the listener first, then build() behind it.
    const readiness = new Readiness();
    const http = createHttpServer(config, startupResponder(readiness));
    await listen(http, 0, "127.0.0.1");
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    const building = build(config, { store, readiness, http });

    expect(await get(base, "/ready")).toEqual({ status: 503, body: { status: "starting" } });
    expect(await get(base, "/health")).toMatchObject({ status: 503, body: { status: "starting" } });
    const other = await fetch(`${base}/presets`);
    expect(other.status).toBe(503);
    expect(other.headers.get("retry-after")).toBe("5");
    expect(readiness.phase).toBe("starting");

    release();
    const service = await building;
    expect(await get(base, "/ready")).toEqual({ status: 200, body: { status: "ready" } });
    expect((await get(base, "/presets")).status).toBe(200);
    await shutdownGracefully(service, 0);
  });
});

describe("during a graceful shutdown", () => {
  it("turns not ready on REST and gRPC at once, and keeps serving until the drain delay ends", async () => {
    const svc = await startService();
    const health = grpcJsClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", svc.grpcPort);
    const stamps = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", svc.grpcPort);
    const watch = health.Watch!({ service: "" }) as grpc.ClientReadableStream<{ status: string }>;
    const watched: string[] = [];
    const sawNotServing = new Promise<void>((resolve) =>
      watch.on("data", ({ status }) => {
        watched.push(status);
        if (status === "NOT_SERVING") resolve();
      }),
    );
    watch.on("error", () => {});
    expect(await get(svc.baseUrl, "/ready")).toEqual({ status: 200, body: { status: "ready" } });
    expect((await unary<{ status: string }>(health, "Check", { service: "" })).status).toBe("SERVING");

    const skip = new AbortController();
    const stopped = shutdownGracefully(svc.service, 0, { delayMs: 600_000, skip: skip.signal });

    expect(await get(svc.baseUrl, "/ready")).toEqual({ status: 503, body: { status: "stopping" } });
    expect((await unary<{ status: string }>(health, "Check", { service: "" })).status).toBe("NOT_SERVING");
    expect((await unary<{ status: string }>(stamps, "HealthCheck", { service: "" })).status).toBe(
      "NOT_SERVING",
    );
    await sawNotServing;
    expect(watched).toEqual(["SERVING", "NOT_SERVING"]);
    // Draining: not ready, but still answering, so requests in flight at the balancer land.
    expect((await get(svc.baseUrl, "/health")).status).toBe(200);
    expect((await get(svc.baseUrl, "/presets")).status).toBe(200);

    skip.abort();
    await stopped;
    await expect(fetch(`${svc.baseUrl}/ready`)).rejects.toThrow();
    health.close();
    stamps.close();
    dirs.push(svc.dataDir);
  });
});
