import http from "node:http";
import http2 from "node:http2";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";
import { type RawSocket, rawConnect } from "./raw-socket.js";

// One client holding slow-header sockets must not take the whole listener (MAX_CONNECTIONS) from
// everyone else: MAX_CONNECTIONS_PER_CLIENT (default 100) caps each client address. Two clients on
// one machine: 127.0.0.1 (the greedy one) and 127.0.0.2 (loopback answers for all of 127/8).

const GREEDY = "127.0.0.1";
const OTHER = "127.0.0.2";
const HELD = 200;

let svc: RunningService;
const opened: RawSocket[] = [];

beforeAll(async () => {
  // The audit's setting, with the default per-client cap and proxies (none: loopback is a client).
  svc = await startService({
    MAX_CONNECTIONS: String(HELD),
    TRUSTED_PROXIES: "none",
    RATE_LIMIT_ENABLED: "false",
  });
});
afterAll(async () => {
  for (const s of opened) s.socket.destroy();
  await svc?.close();
});

/** Opens `count` connections from GREEDY that send half a request line and then nothing. */
async function holdSockets(url: string, count: number, start?: string): Promise<RawSocket[]> {
  const held = await Promise.all(Array.from({ length: count }, () => rawConnect(url, GREEDY)));
  opened.push(...held);
  if (start) for (const s of held) s.socket.write(start);
  return held;
}

function probe(baseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}/health`, { localAddress: OTHER, agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
  });
}

describe("connections per client address", () => {
  it("REST: a client holding MAX_CONNECTIONS slow sockets keeps 100; another's 30 probes all pass", async () => {
    const held = await holdSockets(svc.baseUrl, HELD, "GET /health HTTP/1.1\r\n");
    await expect.poll(() => held.filter((s) => s.socket.closed).length).toBe(HELD - 100);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push(await probe(svc.baseUrl).catch(() => 0));
    expect(statuses).toEqual(Array(30).fill(200));
    // The greedy client's kept sockets are still open: the cap closed only the excess.
    expect(held.filter((s) => !s.socket.closed)).toHaveLength(100);
    for (const s of held) s.socket.destroy();
  });

  it("gRPC: the same cap on the HTTP/2 listener; another client's health check passes", async () => {
    const held = await holdSockets(svc.grpcUrl, HELD);
    await expect.poll(() => held.filter((s) => s.socket.closed).length).toBe(HELD - 100);
    expect(await grpcHealthFrom(OTHER, svc.grpcPort)).toBe("0");
    for (const s of held) s.socket.destroy();
  });
});

/** grpc.health.v1.Health/Check over a connection from `localAddress`: the grpc-status it ends with. */
function grpcHealthFrom(localAddress: string, port: number): Promise<string | undefined> {
  const session = http2.connect(`http://127.0.0.1:${port}`, {
    createConnection: () => net.connect({ port, host: "127.0.0.1", localAddress }),
  });
  return new Promise((resolve, reject) => {
    session.on("error", reject);
    const call = session.request({
      ":method": "POST",
      ":path": "/grpc.health.v1.Health/Check",
      "content-type": "application/grpc",
      te: "trailers",
    });
    call.on("trailers", (trailers) => resolve(trailers["grpc-status"] as string | undefined));
    call.on("error", reject);
    call.on("close", () => session.close());
    call.resume();
    // An empty HealthCheckRequest: the uncompressed flag and a zero length.
    call.end(Buffer.alloc(5));
  });
}
