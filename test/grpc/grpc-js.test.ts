// svc.v1.StampService through @grpc/grpc-js and @grpc/proto-loader reading specs/proto: an
// independent gRPC implementation that never saw the generated code proves the server interoperates.
import type * as grpc from "@grpc/grpc-js";
import { status as Status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { type GrpcJsClient, grpcJsClient, unary } from "../helpers/grpc-js.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { postStamp } from "../stamps/helpers.js";
import { CountingBus, grpcJsStampClient, metadata, sha3, sha256 } from "./fixture.js";

interface Stamp {
  id: string;
  content_hash: string;
  algorithm: string;
  status: string;
  description: string;
  metadata: Record<string, string>;
  timestamp: { seconds: string; nanos: number };
}

const bus = new CountingBus();
let svc: RunningService;
let client: GrpcJsClient;
let key: string;
let auth: grpc.Metadata;
let accountId: string;

beforeAll(async () => {
  svc = await startService({}, { events: bus });
  client = grpcJsStampClient(svc);
  const issued = await issueKey(svc, { tier: "internal" });
  ({ key, accountId } = issued);
  auth = metadata({ authorization: `Bearer ${key}` });
});
afterAll(async () => {
  client.close();
  await svc.close();
});

const create = (req: object, md = auth) => unary<{ stamp: Stamp }>(client, "CreateStamp", req, md);

describe("unary calls", () => {
  it("CreateStamp makes the stamp REST serves and verifies, signed into the same store", async () => {
    const hash = sha256("grpc-js create");
    const { stamp } = await create({ content_hash: hash, description: "d", metadata: { project: "alpha" } });
    expect(stamp).toMatchObject({
      content_hash: hash,
      algorithm: "HASH_ALGORITHM_SHA256",
      status: "STAMP_STATUS_PENDING",
      description: "d",
      metadata: { project: "alpha" },
    });
    const rest = await (await fetch(`${svc.baseUrl}/stamps/${stamp.id}`)).json();
    expect(rest).toMatchObject({
      stamp_id: stamp.id,
      document_hash: hash.slice(7),
      hash_algorithm: "sha256",
    });
    expect(Date.parse(rest.created_at)).toBe(
      Number(stamp.timestamp.seconds) * 1000 + stamp.timestamp.nanos / 1e6,
    );
    const verified = await fetch(`${svc.baseUrl}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stamp_json: rest.stamp_json }),
    });
    expect((await verified.json()).is_valid).toBe(true);
  });

  it("GetStamp returns the stamp; an unknown id is NOT_FOUND, a malformed one INVALID_ARGUMENT", async () => {
    const { stamp } = await create({ content_hash: sha3("get") });
    const got = await unary<{ stamp: Stamp }>(client, "GetStamp", { stamp_id: stamp.id }, auth);
    expect(got.stamp).toEqual(stamp);
    await expect(
      unary(client, "GetStamp", { stamp_id: "stp_01J9Z8K3M4N5P6Q7R8S9T0V1W2" }, auth),
    ).rejects.toMatchObject({ code: Status.NOT_FOUND });
    await expect(unary(client, "GetStamp", { stamp_id: "nope" }, auth)).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "stamp_id: must be stp_ followed by a 26-character ULID",
    });
  });

  it("Verify answers verified with a message; a mismatch is a result, not an error", async () => {
    const hash = sha3("verify");
    const { stamp } = await create({ content_hash: hash });
    const verify = (content_hash: string) =>
      unary<{ verified: boolean; message: string; content_hash: string }>(
        client,
        "Verify",
        { stamp_id: stamp.id, content_hash },
        auth,
      );
    expect(await verify(hash)).toMatchObject({ verified: true, message: "content hash matches" });
    expect(await verify(sha3("other"))).toMatchObject({
      verified: false,
      message: "content hash does not match",
      content_hash: hash,
    });
  });

  it("a malformed content_hash is INVALID_ARGUMENT naming the problem", async () => {
    await expect(create({ content_hash: `md5:${"0".repeat(32)}` })).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: 'content_hash: unknown algorithm "md5" (expected sha3-256, sha256 or blake3)',
    });
  });

  it("BatchStamp creates the valid items and counts the others", async () => {
    const res = await unary<{ stamps: Stamp[]; success_count: number; failed_count: number }>(
      client,
      "BatchStamp",
      {
        items: [
          { content_hash: sha256("b1") },
          { content_hash: "sha256:xyz" },
          { content_hash: sha256("b2") },
        ],
      },
      auth,
    );
    expect(res.success_count).toBe(2);
    expect(res.failed_count).toBe(1);
    expect(res.stamps.map((s) => s.content_hash)).toEqual([sha256("b1"), sha256("b2")]);
  });

  it("HealthCheck answers SERVING", async () => {
    const res = await unary<{ status: string }>(client, "HealthCheck", { service: "svc.v1.StampService" });
    expect(res.status).toBe("SERVING");
  });
});

describe("authentication", () => {
  it("accepts the key as authorization: Bearer and as x-api-key, and stamps for its account", async () => {
    const seen: AnyDomainEvent[] = [];
    const stop = svc.service.ctx.events.subscribe((e) => {
      if (e.type === "stamp_created") seen.push(e);
    });
    const other = await issueKey(svc);
    await create({ content_hash: sha3("bearer") });
    await create({ content_hash: sha3("x-api-key") }, metadata({ "x-api-key": other.key }));
    await create({ content_hash: sha3("anonymous") }, metadata({}));
    stop();
    expect(seen.map((e) => e.scope.accountId)).toEqual([accountId, other.accountId, null]);
  });

  it.each([
    ["authorization", "Bearer svc_live_notakey"],
    ["x-api-key", "svc_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"],
  ])("a bad key in %s is UNAUTHENTICATED, never anonymous", async (name, value) => {
    // Refused keys are charged to their address (failed-auth.ts): one of their own, so the suite's
    // anonymous calls keep their budget.
    const md = () => metadata({ [name]: value, "x-forwarded-for": `192.0.2.${name.length}` });
    await expect(create({ content_hash: sha3("bad key") }, md())).rejects.toMatchObject({
      code: Status.UNAUTHENTICATED,
    });
    await expect(unary(client, "HealthCheck", { service: "" }, md())).rejects.toMatchObject({
      code: Status.UNAUTHENTICATED,
    });
  });

  it("leaves grpc.health.v1 open to probes that send a stale key", async () => {
    const health = grpcJsClient("grpc/health/v1/health.proto", "grpc.health.v1.Health", svc.grpcPort);
    const res = await unary<{ status: string }>(
      health,
      "Check",
      { service: "" },
      metadata({ authorization: "Bearer svc_live_revoked" }),
    );
    expect(res.status).toBe("SERVING");
    health.close();
  });
});

describe("WatchStamps (server streaming)", () => {
  it("delivers a stamp created over REST, and cancelling frees the subscription", async () => {
    const before = bus.listenerCount;
    const call = client.WatchStamps!(
      { filter: "algorithm=sha3-256" },
      auth,
    ) as grpc.ClientReadableStream<Stamp>;
    const first = new Promise<Stamp>((resolve) => call.once("data", resolve));
    const ended = new Promise<grpc.ServiceError>((resolve) => call.once("error", resolve));
    await bus.waitForListeners(before + 1);
    const res = await postStamp(svc, "watched over gRPC", {}, { key });
    const created = await res.json();
    expect((await first).id).toBe(created.stamp_id);
    call.cancel();
    expect((await ended).code).toBe(Status.CANCELLED);
    await bus.waitForListeners(before);
  });

  it("ends with DEADLINE_EXCEEDED when the client's deadline passes, and unsubscribes", async () => {
    const before = bus.listenerCount;
    const call = client.WatchStamps!({ filter: "" }, auth, {
      deadline: Date.now() + 300,
    }) as grpc.ClientReadableStream<Stamp>;
    const error = await new Promise<grpc.ServiceError>((resolve) => call.once("error", resolve));
    expect(error.code).toBe(Status.DEADLINE_EXCEEDED);
    await bus.waitForListeners(before);
  });

  it("a filter with bad syntax is INVALID_ARGUMENT", async () => {
    const call = client.WatchStamps!({ filter: "project" }, auth) as grpc.ClientReadableStream<Stamp>;
    const error = await new Promise<grpc.ServiceError>((resolve) => call.once("error", resolve));
    expect(error).toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: 'filter: term "project" is not name=value',
    });
  });
});

describe("StreamStamps (bidirectional)", () => {
  it("answers each request once, in order, with sequence 1, 2, 3 …, then ends OK", async () => {
    const call = client.StreamStamps!(auth) as grpc.ClientDuplexStream<
      object,
      { stamp: Stamp; sequence: number }
    >;
    const answers: { sequence: number; hash: string }[] = [];
    call.on("data", (r) => answers.push({ sequence: r.sequence, hash: r.stamp.content_hash }));
    const ended = new Promise<grpc.StatusObject>((resolve) => call.once("status", resolve));
    const hashes = [1, 2, 3, 4, 5].map((i) => sha256(`stream ${i}`));
    for (const content_hash of hashes) call.write({ content_hash, metadata: { n: "1" } });
    call.end();
    expect((await ended).code).toBe(Status.OK);
    expect(answers).toEqual(hashes.map((hash, i) => ({ sequence: i + 1, hash })));
  });

  it("ends with INVALID_ARGUMENT naming the bad request; earlier answers stand", async () => {
    const call = client.StreamStamps!(auth) as grpc.ClientDuplexStream<object, { sequence: number }>;
    const sequences: number[] = [];
    call.on("data", (r) => sequences.push(r.sequence));
    const error = new Promise<grpc.ServiceError>((resolve) => call.once("error", resolve));
    call.write({ content_hash: sha256("ok") });
    call.write({ content_hash: "sha256:12" });
    call.end();
    expect(await error).toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "request 2: content_hash: sha256 digest must be 64 hex digits, got 2",
    });
    expect(sequences).toEqual([1]);
  });
});

describe("rate limiting", () => {
  // A manual clock: no tokens come back while a test runs.
  const frozen = () => startService({}, { clock: new ManualClock() });

  it("shares REST's budget: RESOURCE_EXHAUSTED with the wait; HealthCheck is not limited", async () => {
    const own = await frozen();
    const anon = grpcJsStampClient(own);
    const md = metadata({});
    // Anonymous burst 5, a stamp costs 2 (specs/openapi.yaml info, Rate limiting): one REST stamp and one gRPC stamp pass.
    expect((await postStamp(own, "rest")).status).toBe(201);
    await unary(anon, "CreateStamp", { content_hash: sha3("1") }, md);
    const error = await unary(anon, "CreateStamp", { content_hash: sha3("2") }, md).then(
      () => expect.fail("the third stamp passed"),
      (e: grpc.ServiceError) => e,
    );
    expect(error.code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(error.details).toMatch(/^Rate limit exceeded for tier anonymous\. Retry after \d+ seconds\.$/);
    expect(Number(error.metadata.get("grpc-retry-pushback-ms")[0])).toBeGreaterThan(1000);
    const health = await unary<{ status: string }>(anon, "HealthCheck", { service: "" }, md);
    expect(health.status).toBe("SERVING");
    anon.close();
    await own.close();
  });

  it("charges a BatchStamp as one request, its items to the bulk items budget", async () => {
    const own = await frozen();
    const { key } = await issueKey(own); // authenticated: burst 15, a stamp costs 2; 10 000 items
    const md = metadata({ authorization: `Bearer ${key}` });
    const batcher = grpcJsStampClient(own);
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ content_hash: sha3(`n ${i}`) }));
    for (let call = 0; call < 7; call++) {
      const batch = await unary<{ success_count: number }>(batcher, "BatchStamp", { items: items(100) }, md);
      expect(batch.success_count).toBe(100);
    }
    // Seven calls paid 14.0 of the request budget's 15: a stamp more (2.0) is refused.
    await expect(unary(batcher, "CreateStamp", { content_hash: sha3("one more") }, md)).rejects.toMatchObject(
      { code: Status.RESOURCE_EXHAUSTED },
    );
    batcher.close();
    await own.close();
  });
});
