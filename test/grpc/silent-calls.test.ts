import { mkdtempSync, rmSync } from "node:fs";
import http2 from "node:http2";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ServerProcess } from "../helpers/server-process.js";
import { type RunningService, startService } from "../helpers/service.js";

// Issue #35 item 4, as the audit made it: one anonymous address held 10,000 StreamStamps calls
// that never sent a message (100 connections x 100 streams), RSS 98 -> 619 MB, and 100 of them
// were still open after 400 s. A client now has at most GRPC_MAX_CALLS_PER_CLIENT calls open
// (one more is RESOURCE_EXHAUSTED at once), and a call that sends nothing for
// GRPC_CALL_IDLE_TIMEOUT_MS ends with DEADLINE_EXCEEDED. Raw HTTP/2 clients: they can open
// streams and send nothing, as the attacker's did.

const STREAM_STAMPS = "/svc.v1.StampService/StreamStamps";
const CODE = { ok: "0", deadlineExceeded: "4", resourceExhausted: "8" };

interface Ending {
  status?: string;
  message?: string;
}

/** A connection to `url`, from `localAddress` (another loopback address: another client) when given. */
async function connect(url: string, localAddress?: string): Promise<http2.ClientHttp2Session> {
  const { hostname, port } = new URL(url);
  const from = localAddress
    ? { createConnection: () => net.connect({ host: hostname, port: Number(port), localAddress }) }
    : {};
  const session = http2.connect(url, from);
  session.on("error", () => {});
  await new Promise((resolve) => session.once("remoteSettings", resolve));
  return session;
}

/**
 * A call on `session`: `body` sent and the request ended, or (without one) headers only and then
 * silence. Resolves with the status it ends with, once its stream has closed.
 */
function call(session: http2.ClientHttp2Session, path: string, body?: Buffer): Promise<Ending> {
  const stream = session.request({
    ":method": "POST",
    ":path": path,
    "content-type": "application/grpc",
    te: "trailers",
  });
  if (body) stream.end(body);
  stream.on("error", () => {});
  stream.resume();
  const ending: Ending = {};
  const note = (headers: http2.IncomingHttpHeaders) => {
    if (headers["grpc-status"] === undefined) return;
    ending.status = String(headers["grpc-status"]);
    ending.message = decodeURIComponent(String(headers["grpc-message"] ?? ""));
  };
  stream.on("response", note);
  stream.on("trailers", note);
  return new Promise((resolve) => stream.once("close", () => resolve(ending)));
}

/** An empty message in its gRPC envelope (not compressed, length 0). */
const EMPTY = Buffer.alloc(5);

describe("thousands of silent StreamStamps calls from one address", () => {
  const CONNECTIONS = 20;
  const STREAMS = 100;
  const MOST = 100;
  let server: ServerProcess;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "stampd-silent-"));
    server = await ServerProcess.start({
      DATA_DIR: dataDir,
      // A StreamStamps call is charged as it starts: off, every call gets as far as the bound.
      RATE_LIMIT_ENABLED: "false",
      GRPC_MAX_CALLS_PER_CLIENT: String(MOST),
      GRPC_MAX_CONCURRENT_STREAMS: String(STREAMS),
      // Long enough to outlast the opening of all the calls on a slow machine: the cap is tested here.
      GRPC_CALL_IDLE_TIMEOUT_MS: "60000",
    });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps GRPC_MAX_CALLS_PER_CLIENT open and refuses the rest at once; others are answered", async () => {
    const grpcUrl = `http://127.0.0.1:${server.grpcPort}`;
    const sessions = await Promise.all(Array.from({ length: CONNECTIONS }, () => connect(grpcUrl)));
    const calls = sessions.flatMap((s) => Array.from({ length: STREAMS }, () => call(s, STREAM_STAMPS)));
    let ended = 0;
    const endings = calls.map((c) =>
      c.then((e) => {
        ended += 1;
        return e;
      }),
    );
    // Every call past the allowance ends at once; the allowance's calls stay open, silent.
    const refused = CONNECTIONS * STREAMS - MOST;
    // Waited for up to 30 s (the old code never refuses one: all 2,000 stayed open).
    for (let waited = 0; ended < refused && waited < 30_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const settled = await Promise.all(endings.map((e) => Promise.race([e, Promise.resolve(undefined)])));
    const stillOpen = settled.filter((e) => e === undefined).length;
    expect(stillOpen).toBe(MOST);
    for (const ending of settled.filter((e): e is Ending => e !== undefined)) {
      expect(ending.status).toBe(CODE.resourceExhausted);
      expect(ending.message).toMatch(/GRPC_MAX_CALLS_PER_CLIENT/);
    }
    // Another client is answered meanwhile.
    const other = await connect(grpcUrl, "127.0.0.2");
    expect(await call(other, "/svc.v1.StampService/HealthCheck", EMPTY)).toMatchObject({ status: CODE.ok });
    other.close();
    // The allowance's calls are the client's to end; their memory with them.
    for (const s of sessions) s.destroy();
    await Promise.all(calls);
  }, 120_000);
});

describe("calls that send nothing for GRPC_CALL_IDLE_TIMEOUT_MS", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ GRPC_CALL_IDLE_TIMEOUT_MS: "1000", RATE_LIMIT_ENABLED: "false" });
  });
  afterAll(() => svc.close());

  it("end silent StreamStamps calls with DEADLINE_EXCEEDED naming the setting", async () => {
    const session = await connect(svc.grpcUrl);
    const endings = await Promise.all(Array.from({ length: 100 }, () => call(session, STREAM_STAMPS)));
    for (const ending of endings) {
      expect(ending.status).toBe(CODE.deadlineExceeded);
      expect(ending.message).toMatch(/no request data for 1000 ms \(GRPC_CALL_IDLE_TIMEOUT_MS\)/);
    }
    session.close();
  });

  it("end a unary call whose message never comes, as Connect and as the direct path serve it", async () => {
    const session = await connect(svc.grpcUrl);
    for (const path of ["/svc.v1.StampService/CreateStamp", "/grpc.health.v1.Health/Check"]) {
      expect(await call(session, path)).toMatchObject({ status: CODE.deadlineExceeded });
    }
    session.close();
  });

  it("leave a stream that sends within the timeout, and a watch that has asked, open", async () => {
    const session = await connect(svc.grpcUrl);
    const stream = session.request({
      ":method": "POST",
      ":path": STREAM_STAMPS,
      "content-type": "application/grpc",
      te: "trailers",
    });
    stream.on("error", () => {});
    const answers: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => answers.push(chunk));
    const watch = call(session, "/grpc.health.v1.Health/Watch", EMPTY);
    let watchEnded = false;
    void watch.then(() => {
      watchEnded = true;
    });
    // Six requests 400 ms apart: the stream lives 2.4 s, past the 1 s timeout, never silent for it.
    for (let i = 0; i < 6; i++) {
      stream.write(stampRequest(i));
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(stream.closed).toBe(false);
    expect(watchEnded).toBe(false);
    const closed = new Promise<http2.IncomingHttpHeaders>((resolve) => stream.once("trailers", resolve));
    stream.end();
    expect((await closed)["grpc-status"]).toBe(CODE.ok);
    expect(answers.length).toBeGreaterThan(0);
    session.destroy();
  });
});

/** A StreamStampRequest `{content_hash}` in its envelope: field 1, a 64-hex SHA-256 digest text. */
function stampRequest(i: number): Buffer {
  const hash = Buffer.from(`sha256:${i.toString(16).padStart(64, "0")}`);
  const message = Buffer.concat([Buffer.from([0x0a, hash.length]), hash]);
  const envelope = Buffer.alloc(5);
  envelope.writeUInt32BE(message.length, 1);
  return Buffer.concat([envelope, message]);
}
