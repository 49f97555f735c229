// svc.v1 over HTTP/1.1 on the REST port (issue #36): the gRPC port speaks HTTP/2 only, so `curl`
// and browsers call the Connect and gRPC-Web protocols here. Plain fetch, as curl would send them,
// and connect-node's transports pinned to HTTP/1.1 for the streams.
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StampService, StampStatus } from "../../gen/proto/svc/v1/stamp_pb.js";
import { ManualClock } from "../../server/clock.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { postStamp } from "../stamps/helpers.js";
import { CountingBus, connectClient, sha256 } from "./fixture.js";

const CREATE = "/svc.v1.StampService/CreateStamp";
const GET = "/svc.v1.StampService/GetStamp";

/** A Connect unary call as `curl -H 'content-type: application/json' -d '…'` sends it. */
function connectCall(svc: RunningService, path: string, body: string, headers: Record<string, string> = {}) {
  return fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

describe("Connect unary over HTTP/1.1 on the REST port", () => {
  let svc: RunningService;
  let key: string;

  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_ENABLED: "false" });
    ({ key } = await issueKey(svc));
  });
  afterAll(() => svc?.close());

  it("stamps and reads back the stamp REST serves", async () => {
    const hash = sha256("over HTTP/1.1");
    const created = await connectCall(svc, CREATE, JSON.stringify({ content_hash: hash }), {
      authorization: `Bearer ${key}`,
    });
    expect(created.status).toBe(200);
    expect(created.headers.get("content-type")).toBe("application/json");
    const { stamp } = (await created.json()) as {
      stamp: { id: string; contentHash: string; status: string };
    };
    expect(stamp).toMatchObject({ contentHash: hash, status: "STAMP_STATUS_PENDING" });
    const read = await connectCall(svc, GET, JSON.stringify({ stamp_id: stamp.id }));
    expect(await read.json()).toMatchObject({ stamp: { id: stamp.id, contentHash: hash } });
    expect((await fetch(`${svc.baseUrl}/stamps/${stamp.id}`)).status).toBe(200);
  });

  it.each([
    ["a malformed stamp id", GET, '{"stamp_id": "nope"}', {}, 400, "invalid_argument", /^stamp_id: /],
    ["an unknown stamp", GET, `{"stamp_id": "stp_${"0".repeat(26)}"}`, {}, 404, "not_found", /./],
    ["a body that is not JSON", CREATE, "{nope", {}, 400, "invalid_argument", /from JSON/],
    ["a key that is not valid", CREATE, "{}", { "x-api-key": "sk_nope" }, 401, "unauthenticated", /./],
  ])("answers %s in Connect's error shape", async (_name, path, body, headers, status, code, message) => {
    const res = await connectCall(svc, path, body, headers);
    expect(res.status).toBe(status);
    const error = (await res.json()) as { code: string; message: string };
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
  });

  it("ends a stream the server cannot serve with the call's status", async () => {
    const client = createClient(
      StampService,
      createConnectTransport({ baseUrl: svc.baseUrl, httpVersion: "1.1" }),
    );
    const watch = async () => {
      for await (const _ of client.watchStamps({ filter: "status=lost" })) return;
    };
    const error = await watch().then(
      () => expect.fail("the watch was served"),
      (e: unknown) => ConnectError.from(e),
    );
    expect(error.code).toBe(Code.InvalidArgument);
  });

  it("answers a preflight with the headers Connect, gRPC-Web and the key need", async () => {
    const res = await fetch(`${svc.baseUrl}${CREATE}`, {
      method: "OPTIONS",
      headers: {
        origin: "http://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type,connect-protocol-version,authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toBe("POST,GET");
    const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase().split(",");
    for (const name of [
      "content-type",
      "connect-protocol-version",
      "connect-timeout-ms",
      "x-grpc-web",
      "x-user-agent",
      "grpc-timeout",
      "authorization",
      "x-api-key",
    ]) {
      expect(allowed).toContain(name);
    }
    const exposed = res.headers.get("access-control-expose-headers")!.toLowerCase().split(",");
    for (const name of ["grpc-status", "grpc-message", "grpc-status-details-bin", "retry-after"]) {
      expect(exposed).toContain(name);
    }
  });

  it("leaves plain gRPC to the gRPC port (415) and other paths to REST (404)", async () => {
    const grpc = await connectCall(svc, CREATE, "", { "content-type": "application/grpc" });
    expect(grpc.status).toBe(415);
    await grpc.arrayBuffer();
    const unknown = await connectCall(svc, "/svc.v1.StampService/NoSuchMethod", "{}");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-request-id")).toBeTruthy();
    await unknown.arrayBuffer();
  });
});

describe("CORS_ORIGINS", () => {
  it("lets only the listed origins call", async () => {
    const svc = await startService({ RATE_LIMIT_ENABLED: "false", CORS_ORIGINS: "http://app.example" });
    const from = (origin: string) =>
      connectCall(svc, GET, `{"stamp_id": "stp_${"0".repeat(26)}"}`, { origin }).then((res) =>
        res.headers.get("access-control-allow-origin"),
      );
    expect(await from("http://app.example")).toBe("http://app.example");
    expect(await from("http://other.example")).toBeNull();
    await svc.close();
  });
});

describe("rate limits over HTTP/1.1", () => {
  it("shares REST's budget: 429 with Retry-After once it is spent", async () => {
    // A manual clock: no tokens come back while the test runs.
    const svc = await startService({}, { clock: new ManualClock() });
    // Anonymous burst 5, a stamp costs 2: one REST stamp and one Connect stamp pass.
    expect((await postStamp(svc, "rest")).status).toBe(201);
    expect((await connectCall(svc, CREATE, JSON.stringify({ content_hash: sha256("1") }))).status).toBe(200);
    const refused = await connectCall(svc, CREATE, JSON.stringify({ content_hash: sha256("2") }));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "resource_exhausted" });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers.get("grpc-retry-pushback-ms"))).toBeGreaterThan(1000);
    await svc.close();
  });
});

describe("server streams over HTTP/1.1", () => {
  const bus = new CountingBus();
  let svc: RunningService;
  /** Subscriptions with no watch open. */
  let idle: number;

  beforeAll(async () => {
    // The socket's idle timeout must not cut a stream that has nothing to say for a while.
    svc = await startService({ RATE_LIMIT_ENABLED: "false", HTTP_IDLE_TIMEOUT_MS: "200" }, { events: bus });
    idle = bus.listenerCount;
  });
  afterAll(() => svc?.close());

  it.each([
    ["Connect", createConnectTransport],
    ["gRPC-Web", createGrpcWebTransport],
  ])(
    "WatchStamps over %s, silent past HTTP_IDLE_TIMEOUT_MS, gets the next stamp",
    async (name, transport) => {
      const client = createClient(StampService, transport({ baseUrl: svc.baseUrl, httpVersion: "1.1" }));
      // The previous test's watch gives its subscription back once its end reaches the server.
      await bus.waitForListeners(idle);
      const abort = new AbortController();
      const first = (async () => {
        for await (const stamp of client.watchStamps({ filter: `via=${name}` }, { signal: abort.signal })) {
          abort.abort();
          return stamp;
        }
      })();
      await bus.waitForListeners(idle + 1);
      await new Promise((resolve) => setTimeout(resolve, 600));
      const hash = sha256(`watched over ${name}`);
      // Through the gRPC port: a unary call here would be cut too if the service took 200 ms.
      await connectClient(svc).createStamp({ contentHash: hash, metadata: { via: name } });
      expect(await first).toMatchObject({ contentHash: hash, status: StampStatus.PENDING });
    },
  );
});
