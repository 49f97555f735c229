import { createHash } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import {
  Code,
  ConnectError,
  type ConnectRouter,
  createRouterTransport,
  type HandlerContext,
} from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CreateStampResponseSchema,
  HealthCheckResponseSchema,
  StampSchema,
  type StreamStampRequest,
  StreamStampResponseSchema,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import {
  createClient,
  createGrpcClient,
  GrpcServingStatus,
  StampdError,
  StampService,
} from "../../sdk/src/index.js";
import { type RunningService, startService } from "../helpers/service.js";

// An in-memory StampService (Connect's router transport) that shows what the client sends: the
// authorization metadata comes back as the stamp's description.
const authOf = (ctx: HandlerContext) => ctx.requestHeader.get("authorization") ?? "";
const stamp = (id: string, description = "") =>
  create(StampSchema, { id, contentHash: `sha256:${"0".repeat(64)}`, description });

function routes(router: ConnectRouter) {
  router.service(StampService, {
    createStamp: (_req, ctx) => create(CreateStampResponseSchema, { stamp: stamp("stp_1", authOf(ctx)) }),
    async *watchStamps(req) {
      yield stamp("stp_1", req.filter);
      yield stamp("stp_2", req.filter);
    },
    async *streamStamps(requests: AsyncIterable<StreamStampRequest>, ctx) {
      let sequence = 0;
      for await (const r of requests) {
        sequence++;
        yield create(StreamStampResponseSchema, { stamp: stamp(r.contentHash, authOf(ctx)), sequence });
      }
    },
    healthCheck: () => create(HealthCheckResponseSchema, { status: GrpcServingStatus.SERVING }),
  });
}

describe("gRPC client (in memory)", () => {
  const grpc = createGrpcClient({ transport: createRouterTransport(routes), apiKey: "svc_test_key" });

  it("sends the API key as authorization: Bearer metadata", async () => {
    const res = await grpc.createStamp({ contentHash: `sha256:${"0".repeat(64)}` });
    expect(res.stamp?.description).toBe("Bearer svc_test_key");
  });

  it("gives a server stream as an async iterable", async () => {
    const ids: string[] = [];
    for await (const s of grpc.watch("status=pending")) ids.push(`${s.id} ${s.description}`);
    expect(ids).toEqual(["stp_1 status=pending", "stp_2 status=pending"]);
  });

  it("streams requests from an array and answers each in order", async () => {
    const answers: string[] = [];
    for await (const r of grpc.stream([{ contentHash: "a" }, { contentHash: "b" }]))
      answers.push(`${r.sequence}:${r.stamp?.id}`);
    expect(answers).toEqual(["1:a", "2:b"]);
  });

  it("streams requests from an async generator", async () => {
    async function* hashes() {
      yield { contentHash: "x" };
    }
    const answers = [];
    for await (const r of grpc.stream(hashes())) answers.push(r.stamp?.description);
    expect(answers).toEqual(["Bearer svc_test_key"]);
  });

  it("client.grpc needs an address or a transport", () => {
    expect(() => createClient({ baseUrl: "http://stampd.test" }).grpc).toThrow(StampdError);
  });
});

describe("gRPC client (real server over HTTP/2)", () => {
  let svc: RunningService | undefined;
  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  });
  afterAll(() => svc?.close());

  it("HealthCheck through client.grpc reports SERVING", async () => {
    const stampd = createClient({ baseUrl: svc!.baseUrl, grpcUrl: svc!.grpcUrl });
    expect((await stampd.grpc.healthCheck()).status).toBe(GrpcServingStatus.SERVING);
  });

  it("SearchStamps pages through a hash's stamps newest first; a bad hash is INVALID_ARGUMENT", async () => {
    const { grpc } = createClient({ baseUrl: svc!.baseUrl, grpcUrl: svc!.grpcUrl });
    const contentHash = `sha256:${createHash("sha256").update(`searched ${Math.random()}`).digest("hex")}`;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await grpc.createStamp({ contentHash })).stamp!.id);
    await grpc.createStamp({ contentHash: `sha256:${"ab".repeat(32)}` }); // another hash: not found

    const first = await grpc.searchStamps({ contentHash, pageSize: 2 });
    expect(first.contentHash).toBe(contentHash);
    expect(first.stamps.map((m) => m.id)).toEqual([made[2], made[1]]);
    expect(first.nextPageToken).not.toBe("");
    const last = await grpc.searchStamps({ contentHash, pageSize: 2, pageToken: first.nextPageToken });
    expect(last.stamps.map((m) => m.id)).toEqual([made[0]]);
    expect(last.nextPageToken).toBe("");

    const never = await grpc.searchStamps({ contentHash: `sha256:${"cd".repeat(32)}` });
    expect(never.stamps).toEqual([]);
    const refused = grpc.searchStamps({ contentHash: "md5:00" });
    await expect(refused).rejects.toBeInstanceOf(ConnectError);
    await expect(refused).rejects.toMatchObject({ code: Code.InvalidArgument });
  });
});
