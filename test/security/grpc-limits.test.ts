import http2 from "node:http2";
import type * as grpc from "@grpc/grpc-js";
import { Status } from "@grpc/grpc-js/build/src/constants.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcJsStampClient, metadata, sha3 } from "../grpc/fixture.js";
import { type GrpcJsClient, unary } from "../helpers/grpc-js.js";
import { type RunningService, startService } from "../helpers/service.js";

// The gRPC listener's per-connection limits (server/grpc/limits.ts), seen by a raw HTTP/2 client
// (which can hold streams open and watch the connection) and by @grpc/grpc-js.
let svc: RunningService;
let client: GrpcJsClient;

beforeAll(async () => {
  svc = await startService({
    RATE_LIMIT_ENABLED: "false",
    GRPC_MAX_CONCURRENT_STREAMS: "2",
    GRPC_MAX_MESSAGE_BYTES: "2048",
    GRPC_IDLE_TIMEOUT_MS: "300",
    MAX_HEADER_BYTES: "4096",
  });
  client = grpcJsStampClient(svc);
});
afterAll(async () => {
  client.close();
  await svc.close();
});

async function session(): Promise<http2.ClientHttp2Session> {
  const s = http2.connect(svc.grpcUrl);
  s.on("error", () => {});
  await new Promise((resolve) => s.once("remoteSettings", resolve));
  return s;
}

/** grpc.health.v1.Health/Watch: a call that stays open, answering once at the start. */
function watchHealth(s: http2.ClientHttp2Session) {
  const stream = s.request({
    ":method": "POST",
    ":path": "/grpc.health.v1.Health/Watch",
    "content-type": "application/grpc",
    te: "trailers",
  });
  // One gRPC frame: not compressed, length 0 (an empty HealthCheckRequest).
  stream.end(Buffer.alloc(5));
  stream.on("error", () => {});
  // Read what comes, so that a closed stream ends and lets its connection close.
  stream.resume();
  const answered = new Promise<void>((resolve) => stream.once("response", () => resolve()));
  return { stream, answered };
}

const ping = (s: http2.ClientHttp2Session) =>
  new Promise<void>((resolve, reject) => s.ping((err) => (err ? reject(err) : resolve())));

const closed = (s: http2.ClientHttp2Session) => new Promise<void>((resolve) => s.once("close", resolve));

describe("per connection", () => {
  it("advertises GRPC_MAX_CONCURRENT_STREAMS and MAX_HEADER_BYTES in its HTTP/2 settings", async () => {
    const s = await session();
    expect(s.remoteSettings).toMatchObject({ maxConcurrentStreams: 2, maxHeaderListSize: 4096 });
    s.close();
  });

  it("runs at most GRPC_MAX_CONCURRENT_STREAMS calls at once on one connection", async () => {
    const s = await session();
    const first = watchHealth(s);
    const second = watchHealth(s);
    await Promise.all([first.answered, second.answered]);
    const third = watchHealth(s);
    let thirdAnswered = false;
    void third.answered.then(() => {
      thirdAnswered = true;
    });
    // A ping round trip on the same connection: the server has seen everything sent before it.
    await ping(s);
    expect(thirdAnswered).toBe(false);
    first.stream.close();
    await third.answered;
    s.destroy();
  });

  it("resets a call whose metadata exceeds MAX_HEADER_BYTES", async () => {
    const pad = metadata({ "x-pad": "a".repeat(6000) });
    const err = await unary(client, "GetStamp", { stamp_id: "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D" }, pad).then(
      () => expect.fail("a call with 6000 bytes of metadata passed"),
      (e: grpc.ServiceError) => e,
    );
    expect(err.code).toBe(Status.RESOURCE_EXHAUSTED);
  });

  it("fails a request message over GRPC_MAX_MESSAGE_BYTES with RESOURCE_EXHAUSTED", async () => {
    const big = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, "v".repeat(500)]));
    const err = await unary(client, "CreateStamp", { content_hash: sha3("big"), metadata: big }).then(
      () => expect.fail("a 4 KB message passed a 2 KB limit"),
      (e: grpc.ServiceError) => e,
    );
    expect(err.code).toBe(Status.RESOURCE_EXHAUSTED);
    const small = await unary<{ stamp: { id: string } }>(client, "CreateStamp", {
      content_hash: sha3("small"),
      metadata: { k: "v".repeat(500) },
    });
    expect(small.stamp.id).toMatch(/^stp_/);
  });
});

describe("idle connections", () => {
  it("closes a connection without calls after GRPC_IDLE_TIMEOUT_MS, not one with a quiet stream", async () => {
    const busy = await session();
    const watch = watchHealth(busy);
    await watch.answered;
    const idle = await session();
    // Once the idle connection is gone, the busy one has been quiet at least as long.
    await closed(idle);
    expect(busy.closed || busy.destroyed).toBe(false);
    await ping(busy);
    expect(watch.stream.closed).toBe(false);
    watch.stream.close();
    // With its last call ended the busy connection is idle too, and goes the same way.
    await closed(busy);
  });
});
