// WatchStamps calls whose client goes away: reset, or the connection dropped, with or without
// half-closing the request first. Each ends on the server as CANCELLED (the status the metrics
// record) and nothing is logged at error level: a client leaving is not a fault of the server.
import http2 from "node:http2";
import net from "node:net";
import { Writable } from "node:stream";
import type * as grpc from "@grpc/grpc-js";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcJsClient } from "../helpers/grpc-js.js";
import { type RunningService, startService } from "../helpers/service.js";
import { CountingBus } from "./fixture.js";

const method = "svc.v1.StampService/WatchStamps";
const levels: number[] = [];
const logger = pino(
  { level: "debug" },
  new Writable({
    write(line, _encoding, done) {
      levels.push(JSON.parse(String(line)).level);
      done();
    },
  }),
);
const bus = new CountingBus();
let svc: RunningService;

beforeAll(async () => {
  svc = await startService({}, { logger, events: bus });
});
afterAll(() => svc.close());

/** Calls of WatchStamps the server has finished with `code` (any code without one). */
async function finished(code?: string): Promise<number> {
  const { values } = await svc.service.ctx.metrics.grpcCalls.get();
  const counted = values.filter((v) => v.labels.method === method && (!code || v.labels.code === code));
  return counted.reduce((sum, v) => sum + v.value, 0);
}

/** Resolves once the server has finished one more call, with whatever status, than `before`. */
async function untilOneMoreFinished(before: number): Promise<void> {
  while ((await finished()) <= before) await new Promise((resolve) => setTimeout(resolve, 10));
}

const errorsLogged = () => levels.filter((level) => level >= 50).length;

/**
 * A raw HTTP/2 WatchStamps call that sends its request message but never ends the request stream
 * (no half-close), as a client that dies mid-call does; resolves once the server has the request.
 */
async function halfOpenWatch(session: http2.ClientHttp2Session) {
  const stream = session.request(
    {
      ":method": "POST",
      ":path": `/${method}`,
      "content-type": "application/grpc",
      te: "trailers",
    },
    { endStream: false },
  );
  stream.on("error", () => {});
  // One uncompressed, empty WatchStampsRequest (filter ""), in gRPC's 5-byte framing.
  await new Promise<void>((resolve, reject) =>
    stream.write(Buffer.from([0, 0, 0, 0, 0]), (err) => (err ? reject(err) : resolve())),
  );
  return stream;
}

describe("a WatchStamps client that goes away", () => {
  it.each([
    ["resets the stream", (stream: http2.ClientHttp2Stream) => stream.close(http2.constants.NGHTTP2_CANCEL)],
    ["drops the connection", (stream: http2.ClientHttp2Stream) => stream.session?.destroy()],
  ])("without half-closing its request %s: CANCELLED, no error logged", async (_, leave) => {
    const before = { all: await finished(), cancelled: await finished("CANCELLED"), errors: errorsLogged() };
    const session = http2.connect(svc.grpcUrl);
    const stream = await halfOpenWatch(session);
    leave(stream);
    await untilOneMoreFinished(before.all);
    expect(await finished("CANCELLED")).toBe(before.cancelled + 1);
    expect(errorsLogged()).toBe(before.errors);
    session.destroy();
  });

  it("cancelled by @grpc/grpc-js while watching: CANCELLED, no error logged", async () => {
    const before = {
      all: await finished(),
      cancelled: await finished("CANCELLED"),
      errors: errorsLogged(),
      listeners: bus.listenerCount,
    };
    const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", svc.grpcPort);
    const call = client.WatchStamps!({ filter: "" }) as grpc.ClientReadableStream<unknown>;
    call.on("error", () => {});
    await bus.waitForListeners(before.listeners + 1);
    call.cancel();
    await untilOneMoreFinished(before.all);
    expect(await finished("CANCELLED")).toBe(before.cancelled + 1);
    await bus.waitForListeners(before.listeners);
    expect(errorsLogged()).toBe(before.errors);
    client.close();
  });

  it("whose connection is cut under @grpc/grpc-js while watching: CANCELLED, no error logged", async () => {
    // A TCP relay between client and server, so the test can cut the connection as a network would.
    const sockets: net.Socket[] = [];
    const relay = net.createServer((downstream) => {
      const upstream = net.connect(svc.grpcPort, "127.0.0.1");
      sockets.push(downstream, upstream);
      for (const s of [downstream, upstream]) s.on("error", () => {});
      downstream.pipe(upstream).pipe(downstream);
    });
    await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
    const before = {
      all: await finished(),
      cancelled: await finished("CANCELLED"),
      errors: errorsLogged(),
      listeners: bus.listenerCount,
    };
    const client = grpcJsClient(
      "svc/v1/stamp.proto",
      "svc.v1.StampService",
      (relay.address() as net.AddressInfo).port,
    );
    const call = client.WatchStamps!({ filter: "" }) as grpc.ClientReadableStream<unknown>;
    call.on("error", () => {});
    await bus.waitForListeners(before.listeners + 1);
    for (const s of sockets) s.destroy();
    await untilOneMoreFinished(before.all);
    expect(await finished("CANCELLED")).toBe(before.cancelled + 1);
    await bus.waitForListeners(before.listeners);
    expect(errorsLogged()).toBe(before.errors);
    client.close();
    await new Promise((resolve) => relay.close(resolve));
  });
});
