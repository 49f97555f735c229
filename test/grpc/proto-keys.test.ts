// A `__proto__` metadata key reaches the server as sent, over Connect with JSON and over gRPC with
// binary protobuf, and is refused with INVALID_ARGUMENT naming it. It used to vanish while the
// message was parsed (an assignment to a plain object's `__proto__`), and the stamp was made
// without it. protobuf-es keeps the key through patches/@bufbuild+protobuf+2.13.0.patch.
import http2 from "node:http2";
import { fromJsonString } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CreateStampRequestSchema } from "../../gen/proto/svc/v1/stamp_pb.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { connectClient, sha256 } from "./fixture.js";

let svc: RunningService;
let client: ReturnType<typeof connectClient>;
beforeAll(async () => {
  svc = await startService();
  const { key } = await issueKey(svc, { tier: "internal" });
  client = connectClient(svc, { "x-api-key": key });
});
afterAll(() => svc.close());

const body = (hash: string) => `{"contentHash":"${hash}","metadata":{"__proto__":"x","project":"alpha"}}`;

/** A Connect-protocol unary call with a JSON body, over HTTP/2 as the listener speaks it. */
async function connectJson(path: string, json: string) {
  const session = http2.connect(svc.grpcUrl);
  try {
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      "content-type": "application/json",
      "connect-protocol-version": "1",
    });
    stream.end(json);
    const [status, text] = await Promise.all([
      new Promise<number>((resolve) => stream.once("response", (h) => resolve(Number(h[":status"])))),
      new Promise<string>((resolve) => {
        let out = "";
        stream.on("data", (chunk: Buffer) => {
          out += chunk.toString();
        });
        stream.on("end", () => resolve(out));
      }),
    ]);
    return { status, json: JSON.parse(text) };
  } finally {
    session.close();
  }
}

describe("a __proto__ metadata key", () => {
  it("is INVALID_ARGUMENT over Connect with JSON, naming the key", async () => {
    const res = await connectJson("/svc.v1.StampService/CreateStamp", body(sha256("proto json")));
    expect(res).toEqual({
      status: 400,
      json: { code: "invalid_argument", message: 'metadata: key "__proto__" is not allowed' },
    });
  });

  it("is INVALID_ARGUMENT over gRPC with binary protobuf", async () => {
    const request = fromJsonString(CreateStampRequestSchema, body(sha256("proto binary")));
    const error = await client.createStamp(request).then(
      () => expect.fail("the stamp was made"),
      (e) => ConnectError.from(e),
    );
    expect(error).toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: 'metadata: key "__proto__" is not allowed',
    });
  });

  it("in a BatchStamp item counts that item as failed", async () => {
    const item = fromJsonString(CreateStampRequestSchema, body(sha256("proto batch")));
    const res = await client.batchStamp({ items: [item, { contentHash: sha256("fine") }] });
    expect(res).toMatchObject({ successCount: 1, failedCount: 1 });
  });
});
