// The WebSocket `stamp` message takes metadata of any JSON values. A stamp records string values
// (its signed document, and gRPC's map<string,string>), so other values are recorded as their
// RFC 8785 text, and every transport shows the same recorded strings.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import { type RunningService, startService } from "../helpers/service.js";
import { TestClient } from "./ws-client.js";

let svc: RunningService;
let client: TestClient;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  client = await TestClient.connect(svc.baseUrl);
});
afterAll(async () => {
  client.close();
  await svc.close();
});

const contentHash = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;

it("records non-string values as their JCS text, shown alike over WebSocket, REST and gRPC", async () => {
  const reply = await client.expectReply("stamp_created", {
    type: "stamp",
    data: {
      contentHash: contentHash(1),
      metadata: {
        name: "report",
        pages: 12,
        ratio: 0.5,
        final: true,
        none: null,
        tags: ["a", 1],
        by: { z: 1, a: "x" },
      },
    },
  });
  const recorded = {
    name: "report",
    pages: "12",
    ratio: "0.5",
    final: "true",
    none: "null",
    tags: '["a",1]',
    by: '{"a":"x","z":1}',
  };
  expect(reply.data.metadata).toEqual(recorded);

  const rest = await fetch(`${svc.baseUrl}/stamps/${reply.data.id}`);
  expect(((await rest.json()) as { stamp_json: { metadata: unknown } }).stamp_json.metadata).toEqual(
    recorded,
  );
  const grpc = createClient(StampService, createGrpcTransport({ baseUrl: svc.grpcUrl }));
  const { stamp } = await grpc.getStamp({ stampId: reply.data.id });
  expect(stamp?.metadata).toEqual(recorded);
});

it.each([
  ["a value whose JSON text is over 512 characters", { list: Array.from({ length: 200 }, (_, i) => i) }],
  ["33 keys", Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i]))],
  ["an empty key", { "": 1 }],
  ["nesting beyond the message's 64 levels", { deep: JSON.parse(`${"[".repeat(70)}${"]".repeat(70)}`) }],
])("answers invalid_message to metadata with %s", async (_name, metadata) => {
  const reply = await client.request({ type: "stamp", data: { contentHash: contentHash(2), metadata } });
  expect(reply).toMatchObject({ type: "error", data: { code: "invalid_message" } });
});
