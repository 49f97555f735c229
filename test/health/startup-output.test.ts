import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it, vi } from "vitest";
import { ServerProcess } from "../helpers/server-process.js";

const dataDir = mkdtempSync(join(tmpdir(), "stampd-startup-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

it("logs one line per listener, the store and the docs, then stops cleanly on SIGTERM", async () => {
  const server = await ServerProcess.start({
    DATA_DIR: dataDir,
    METRICS_PORT: "0",
    METRICS_HOST: "127.0.0.1",
  });
  try {
    await vi.waitFor(() => expect(server.logs.map((l) => l.msg)).toContain("ready"), { timeout: 30_000 });
    const lines = server.logs.map((l) => l.msg);
    const port = new URL(server.baseUrl).port;
    const expected = [
      new RegExp(`^REST listening on http://127\\.0\\.0\\.1:${port} `),
      new RegExp(`^WebSocket listening on ws://127\\.0\\.0\\.1:${port}/ws$`),
      new RegExp(`^gRPC listening on 127\\.0\\.0\\.1:${server.grpcPort} `),
      /^metrics listening on http:\/\/127\.0\.0\.1:\d+\/metrics /,
      new RegExp(`^store: sqlite ${dataDir}/stampd\\.db$`),
      new RegExp(`^docs: http://127\\.0\\.0\\.1:${port}/docs `),
    ];
    for (const pattern of expected) expect(lines.filter((l) => pattern.test(l))).toHaveLength(1);

    const metricsUrl = /(http:\/\/\S+\/metrics)/.exec(lines.find((l) => l.startsWith("metrics"))!)![1]!;
    expect((await fetch(metricsUrl)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/ready`)).status).toBe(200);
  } finally {
    expect(await server.stop("SIGTERM")).toEqual({ code: 0, signal: null });
  }
});
