import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { loadConfig } from "../../server/config.js";
import { type RunningService, startService } from "../helpers/service.js";
import { type RawSocket, rawConnect } from "./raw-socket.js";

// The REST and WebSocket listener's connection limits (server/rest/http-server.ts), with timeouts
// small enough that each test waits for the server to hang up, never for a fixed time.
let svc: RunningService;
const opened: RawSocket[] = [];

const connect = async () => {
  const raw = await rawConnect(svc.baseUrl);
  opened.push(raw);
  return raw;
};

beforeAll(async () => {
  svc = await startService({
    RATE_LIMIT_ENABLED: "false",
    HTTP_HEADERS_TIMEOUT_MS: "500",
    HTTP_REQUEST_TIMEOUT_MS: "1500",
    HTTP_IDLE_TIMEOUT_MS: "500",
    HTTP_KEEP_ALIVE_TIMEOUT_MS: "300",
    MAX_HEADER_BYTES: "2048",
  });
});
afterEach(() => {
  for (const raw of opened.splice(0)) raw.socket.destroy();
});
afterAll(() => svc.close());

const uploadHead = (length: number) =>
  "POST /hash HTTP/1.1\r\nHost: x\r\n" +
  "Content-Type: multipart/form-data; boundary=b\r\n" +
  `Content-Length: ${length}\r\n\r\n`;

describe("slow clients", () => {
  it("answers 408 and hangs up on headers sent a byte at a time (slowloris)", async () => {
    const raw = await connect();
    raw.socket.write("GET /health HTTP/1.1\r\n");
    raw.trickle(`X-Slow: ${"a".repeat(1000)}\r\n\r\n`, 50);
    expect(await raw.closed()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("hangs up on an upload that stalls mid-body", async () => {
    const raw = await connect();
    raw.socket.write(
      `${uploadHead(10_000)}--b\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n`,
    );
    raw.socket.write("the first bytes, then nothing");
    expect(await raw.closed()).toBe("");
  });

  it("answers 408 and hangs up on a body trickled in below the idle timeout, at the request timeout", async () => {
    const raw = await connect();
    raw.socket.write(uploadHead(10_000));
    raw.trickle("x".repeat(10_000), 100);
    expect(await raw.closed()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("closes an idle keep-alive connection after the keep-alive timeout", async () => {
    const raw = await connect();
    raw.socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    expect(await raw.closed()).toMatch(/^HTTP\/1\.1 200 [\s\S]*"status"/);
  });

  it("keeps an upgraded WebSocket open past the HTTP idle timeout", async () => {
    const ws = new WebSocket(`${svc.baseUrl.replace(/^http/, "ws")}/ws`);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    // A connection that goes silent mid-request is cut at the idle timeout: once the server has
    // hung up on it, the WebSocket has been idle at least that long.
    const silent = await connect();
    silent.socket.write("GET /health HTTP/1.1\r\n");
    await silent.closed();
    ws.send(JSON.stringify({ type: "ping", id: "still-there" }));
    const reply = await new Promise<string>((resolve) => ws.once("message", (m) => resolve(String(m))));
    expect(JSON.parse(reply)).toMatchObject({ type: "pong", id: "still-there" });
    ws.close();
  });
});

describe("configuration", () => {
  it("refuses a headers timeout above the request timeout, which includes the headers", () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: "2000", HTTP_REQUEST_TIMEOUT_MS: "1000" })).toThrow(
      "invalid configuration: HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS",
    );
  });
});

describe("header size", () => {
  const headers = (bytes: number) =>
    fetch(`${svc.baseUrl}/health`, { headers: { "x-pad": "a".repeat(bytes) } }).then((r) => r.status);

  it("answers 431 to headers over MAX_HEADER_BYTES and serves those under it", async () => {
    expect(await headers(3000)).toBe(431);
    expect(await headers(1000)).toBe(200);
  });
});

describe("connections", () => {
  let limited: RunningService;
  beforeAll(async () => {
    limited = await startService({ RATE_LIMIT_ENABLED: "false", MAX_CONNECTIONS: "2" });
  });
  afterAll(() => limited.close());

  const connections = (server: { getConnections(cb: (err: Error | null, n: number) => void): void }) =>
    new Promise<number>((resolve, reject) =>
      server.getConnections((err, n) => (err ? reject(err) : resolve(n))),
    );

  it.each([
    ["REST and WebSocket", () => limited.baseUrl, () => limited.service.http],
    ["gRPC", () => limited.grpcUrl, () => limited.service.grpc.server],
  ])("drops %s connections beyond MAX_CONNECTIONS at once", async (_name, url, server) => {
    const held = [await rawConnect(url()), await rawConnect(url())];
    opened.push(...held);
    await expect.poll(() => connections(server())).toBe(2);
    const third = await rawConnect(url());
    opened.push(third);
    expect(await third.closed()).toBe("");
    held[0]!.socket.destroy();
    await expect.poll(() => connections(server())).toBe(1);
    const fourth = await rawConnect(url());
    opened.push(fourth);
    await expect.poll(() => connections(server())).toBe(2);
    expect(fourth.socket.destroyed).toBe(false);
  });
});
