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
  BatchStampResponseSchema,
  CreateStampResponseSchema,
  HealthCheckResponseSchema,
  StampSchema,
  type StreamStampRequest,
  StreamStampResponseSchema,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import {
  BadRequestError,
  createClient,
  createGrpcClient,
  GrpcServingStatus,
  NotFoundError,
  RateLimitError,
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
    await expect(refused).rejects.toBeInstanceOf(BadRequestError);
    await expect(refused).rejects.toMatchObject({ status: 400, code: "invalid_argument" });
  });
});

describe("gRPC errors and retries (issue #36)", () => {
  /** A StampService whose BatchStamp fails with each of `failures` in turn, then answers. */
  function failing(...failures: ConnectError[]) {
    let calls = 0;
    const transport = createRouterTransport((router) =>
      router.service(StampService, {
        batchStamp: () => {
          const failure = failures[calls++];
          if (failure) throw failure;
          return create(BatchStampResponseSchema, { successCount: 1 });
        },
      }),
    );
    return { transport, calls: () => calls };
  }
  const exhausted = (pushback?: string) =>
    new ConnectError(
      "Item limit exceeded for tier anonymous (60 items a minute). Retry after 1 seconds.",
      Code.ResourceExhausted,
      pushback === undefined ? undefined : { "grpc-retry-pushback-ms": pushback },
    );
  const items = [{ contentHash: `sha256:${"0".repeat(64)}` }];

  it("waits out RESOURCE_EXHAUSTED by its grpc-retry-pushback-ms, telling onRetry, and answers", async () => {
    const { transport, calls } = failing(exhausted("20"), exhausted("30"));
    const notices: [string, number, string | undefined][] = [];
    const grpc = createGrpcClient({
      transport,
      onRetry: ({ error, delayMs }) => notices.push([error.name, delayMs, (error as RateLimitError).tier]),
    });
    await expect(grpc.batchStamp(items)).resolves.toMatchObject({ successCount: 1 });
    expect(calls()).toBe(3);
    expect(notices).toEqual([
      ["RateLimitError", 20, "anonymous"],
      ["RateLimitError", 30, "anonymous"],
    ]);
  });

  it("retries UNAVAILABLE, with or without pushback", async () => {
    const down = (pushback?: Record<string, string>) =>
      new ConnectError("the store is unavailable", Code.Unavailable, pushback);
    const { transport, calls } = failing(down({ "grpc-retry-pushback-ms": "5" }), down());
    await expect(createGrpcClient({ transport }).batchStamp(items)).resolves.toMatchObject({
      successCount: 1,
    });
    expect(calls()).toBe(3);
  });

  it("throws the SDK's RateLimitError after maxRetries, with retryAfter from the pushback", async () => {
    const { transport, calls } = failing(exhausted("10"), exhausted("10"), exhausted("10"));
    const error = await createGrpcClient({ transport, maxRetries: 1 })
      .batchStamp(items)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toBeInstanceOf(StampdError);
    expect(error).toMatchObject({
      status: 429,
      code: "resource_exhausted",
      retryAfter: 0.01,
      tier: "anonymous",
    });
    expect((error as RateLimitError).cause).toBeInstanceOf(ConnectError);
    expect(calls()).toBe(2);
  });

  it("does not retry a refusal no wait lifts: RESOURCE_EXHAUSTED without pushback, INVALID_ARGUMENT", async () => {
    const over = failing(exhausted());
    const error = await createGrpcClient({ transport: over.transport })
      .batchStamp(items)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfter).toBeUndefined();
    expect(over.calls()).toBe(1);
    const bad = failing(new ConnectError("items: at most 5 per BatchStamp, got 6", Code.InvalidArgument));
    await expect(createGrpcClient({ transport: bad.transport }).batchStamp(items)).rejects.toBeInstanceOf(
      BadRequestError,
    );
    expect(bad.calls()).toBe(1);
  });

  it("maps a stream's failure too: NOT_FOUND is the SDK's NotFoundError", async () => {
    const transport = createRouterTransport((router) =>
      router.service(StampService, {
        // biome-ignore lint/correctness/useYield: fails before its first message
        async *watchStamps() {
          throw new ConnectError("no such thing", Code.NotFound);
        },
      }),
    );
    const watching = (async () => {
      for await (const _ of createGrpcClient({ transport }).watch()) break;
    })();
    await expect(watching).rejects.toBeInstanceOf(NotFoundError);
  });
});
