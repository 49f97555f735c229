// Unary calls over binary gRPC are served without Connect's pipeline (server/grpc/direct-unary.ts),
// and must answer as Connect does. A call with a `grpc-timeout` goes through Connect, so each case
// is sent both ways, as raw HTTP/2 frames, and the answers compared: headers, message, trailers.
import http2 from "node:http2";
import { gunzipSync } from "node:zlib";
import { create, type DescMessage, fromBinary, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BatchStampRequestSchema,
  BatchStampResponseSchema,
  CreateStampRequestSchema,
  CreateStampResponseSchema,
  GetStampRequestSchema,
  VerifyRequestSchema,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import { servesDirectly } from "../../server/grpc/direct-unary.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { sha256 } from "./fixture.js";

interface Answer {
  headers: Record<string, unknown>;
  /** The response message's bytes (decompressed), or undefined when there was none. */
  message?: Uint8Array;
  compressed?: boolean;
  trailers: Record<string, unknown>;
}

const MAX_MESSAGE = 2048;
let svc: RunningService;
let session: http2.ClientHttp2Session;
let auth: Record<string, string>;

beforeAll(async () => {
  svc = await startService({ GRPC_MAX_MESSAGE_BYTES: String(MAX_MESSAGE) });
  session = http2.connect(svc.grpcUrl);
  auth = { authorization: `Bearer ${(await issueKey(svc, { tier: "internal" })).key}` };
});
afterAll(async () => {
  session.close();
  await svc.close();
});

const envelope = (bytes: Uint8Array, flags = 0) => {
  const out = Buffer.alloc(5 + bytes.length);
  out[0] = flags;
  out.writeUInt32BE(bytes.length, 1);
  out.set(bytes, 5);
  return out;
};
const message = <T extends DescMessage>(schema: T, init: MessageInitShape<T>) =>
  envelope(toBinary(schema, create(schema, init)));

/** One call as raw HTTP/2: the answer without its date header. */
function send(method: string, body: Buffer, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": `/svc.v1.StampService/${method}`,
      "content-type": "application/grpc",
      te: "trailers",
      ...headers,
    });
    const chunks: Buffer[] = [];
    let head: Record<string, unknown> = {};
    stream.on("response", ({ date: _, ...rest }) => {
      head = rest;
    });
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("trailers", (trailers) => {
      const data = Buffer.concat(chunks);
      const payload = data.subarray(5);
      const answer = { headers: head, trailers: { ...trailers } };
      const compressed = data[0] === 1;
      if (data.length === 0) resolve(answer);
      else resolve({ ...answer, compressed, message: compressed ? gunzipSync(payload) : payload });
    });
    stream.on("error", reject);
    stream.end(body);
  });
}

/** The same call served directly and through Connect. */
async function bothWays(method: string, body: Buffer, headers: Record<string, string> = auth) {
  const direct = await send(method, body, headers);
  const viaConnect = await send(method, body, { ...headers, "grpc-timeout": "100S" });
  return { direct, viaConnect };
}

/** A created stamp's own id and time differ between two calls: blanked, to compare the rest. */
function withoutIdentity(bytes: Uint8Array | undefined) {
  const res = fromBinary(CreateStampResponseSchema, bytes!);
  return { ...res.stamp, id: "", timestamp: undefined, proof: undefined };
}

describe("a unary call served directly answers as Connect does", () => {
  it.each([
    [
      "an invalid content_hash",
      "CreateStamp",
      message(CreateStampRequestSchema, { contentHash: "sha256:zz" }),
    ],
    [
      "an unknown stamp",
      "GetStamp",
      message(GetStampRequestSchema, { stampId: "stp_01JAAAAAAAAAAAAAAAAAAAAAAA" }),
    ],
    ["a malformed stamp id", "Verify", message(VerifyRequestSchema, { stampId: "nope" })],
    ["bytes that do not parse", "CreateStamp", envelope(Buffer.from([0x0a, 0xff]))],
    [
      "two messages",
      "CreateStamp",
      Buffer.concat([
        message(CreateStampRequestSchema, { contentHash: sha256("a") }),
        envelope(new Uint8Array()),
      ]),
    ],
    ["no message", "CreateStamp", Buffer.alloc(0)],
    ["a truncated envelope", "CreateStamp", envelope(Buffer.alloc(10)).subarray(0, 8)],
    ["a compressed flag without grpc-encoding", "CreateStamp", envelope(Buffer.alloc(3), 1)],
    [
      "a message over GRPC_MAX_MESSAGE_BYTES",
      "CreateStamp",
      message(CreateStampRequestSchema, { contentHash: sha256("big"), description: "d".repeat(MAX_MESSAGE) }),
    ],
  ])("refusing %s", async (_, method, body) => {
    const { direct, viaConnect } = await bothWays(method, body);
    expect(direct.trailers["grpc-status"]).not.toBe("0");
    expect(direct).toEqual(viaConnect);
  });

  it("refusing a key that is not valid", async () => {
    const body = message(CreateStampRequestSchema, { contentHash: sha256("bad key") });
    const { direct, viaConnect } = await bothWays("CreateStamp", body, { authorization: "Bearer sk_nope" });
    expect(direct.trailers["grpc-status"]).toBe("16");
    expect(direct).toEqual(viaConnect);
  });

  it("creating a stamp, with the response compressed when large and the client accepts gzip", async () => {
    for (const [metadata, compressed] of [
      [{ a: "b" }, false],
      [{ a: "x".repeat(500), b: "y".repeat(500), c: "z".repeat(500) }, true],
    ] as const) {
      const body = message(CreateStampRequestSchema, {
        contentHash: sha256(JSON.stringify(metadata)),
        metadata,
      });
      const headers = { ...auth, "grpc-accept-encoding": "gzip" };
      const { direct, viaConnect } = await bothWays("CreateStamp", body, headers);
      expect(direct.headers).toEqual(viaConnect.headers);
      expect(direct.headers["grpc-encoding"]).toBe("gzip");
      expect(direct.trailers["grpc-status"]).toBe("0");
      expect(direct.trailers).toEqual(viaConnect.trailers);
      expect([direct.compressed, viaConnect.compressed]).toEqual([compressed, compressed]);
      expect(withoutIdentity(direct.message)).toEqual(withoutIdentity(viaConnect.message));
    }
  });

  it("echoing the x-batch-id of a BatchStamp in the response headers", async () => {
    const items = [{ contentHash: sha256("batch item") }, { contentHash: "sha256:bad" }];
    const body = message(BatchStampRequestSchema, { items });
    const direct = await send("BatchStamp", body, {
      ...auth,
      "x-batch-id": "sbt_01JAAAAAAAAAAAAAAAAAAAAAA1",
    });
    const viaConnect = await send("BatchStamp", body, {
      ...auth,
      "x-batch-id": "sbt_01JAAAAAAAAAAAAAAAAAAAAAA2",
      "grpc-timeout": "100S",
    });
    expect(direct.headers["x-batch-id"]).toBe("sbt_01JAAAAAAAAAAAAAAAAAAAAAA1");
    expect({ ...direct.headers, "x-batch-id": "" }).toEqual({ ...viaConnect.headers, "x-batch-id": "" });
    expect(direct.trailers).toEqual(viaConnect.trailers);
    const counts = (a: Answer) => {
      const { successCount, failedCount } = fromBinary(BatchStampResponseSchema, a.message!);
      return { successCount, failedCount };
    };
    expect(counts(direct)).toEqual({ successCount: 1, failedCount: 1 });
    expect(counts(viaConnect)).toEqual(counts(direct));
  });
});

describe("which calls are served directly", () => {
  const request = (headers: Record<string, string>, method = "POST") =>
    ({ method, headers: { "content-type": "application/grpc", ...headers } }) as never;

  it.each([
    ["binary gRPC", {}, true],
    ["application/grpc+proto", { "content-type": "application/grpc+proto" }, true],
    ["grpc-encoding identity", { "grpc-encoding": "identity" }, true],
    ["a deadline", { "grpc-timeout": "1S" }, false],
    ["a compressed request", { "grpc-encoding": "gzip" }, false],
    ["JSON", { "content-type": "application/grpc+json" }, false],
    ["gRPC-Web", { "content-type": "application/grpc-web+proto" }, false],
    ["Connect", { "content-type": "application/proto" }, false],
  ])("%s: %s", (_, headers, direct) => {
    expect(servesDirectly(request(headers))).toBe(direct);
  });

  it("not a GET", () => {
    expect(servesDirectly(request({}, "GET"))).toBe(false);
  });
});
