// HASH_ALGORITHM_BLAKE3 through @grpc/grpc-js reading specs/proto: every RPC that returns a Stamp
// names a blake3 stamp's algorithm (it used to be HASH_ALGORITHM_UNSPECIFIED), and a request may
// state it.
import type * as grpc from "@grpc/grpc-js";
import { status as Status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type GrpcJsClient, unary } from "../helpers/grpc-js.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { CountingBus, grpcJsStampClient, metadata } from "./fixture.js";

interface Stamp {
  id: string;
  content_hash: string;
  algorithm: string;
}

const blake3 = (n: number) => `blake3:${n.toString(16).padStart(64, "0")}`;
const BLAKE3 = "HASH_ALGORITHM_BLAKE3";

const bus = new CountingBus();
let svc: RunningService;
let client: GrpcJsClient;
let auth: grpc.Metadata;

beforeAll(async () => {
  svc = await startService({}, { events: bus });
  client = grpcJsStampClient(svc);
  const { key } = await issueKey(svc, { tier: "internal" });
  auth = metadata({ authorization: `Bearer ${key}` });
});
afterAll(async () => {
  client.close();
  await svc.close();
});

describe("blake3 stamps over gRPC", () => {
  it("CreateStamp and GetStamp report HASH_ALGORITHM_BLAKE3", async () => {
    const { stamp } = await unary<{ stamp: Stamp }>(client, "CreateStamp", { content_hash: blake3(1) }, auth);
    expect(stamp).toMatchObject({ content_hash: blake3(1), algorithm: BLAKE3 });
    const got = await unary<{ stamp: Stamp }>(client, "GetStamp", { stamp_id: stamp.id }, auth);
    expect(got.stamp.algorithm).toBe(BLAKE3);
  });

  it("a request may name BLAKE3, and it must agree with the prefix", async () => {
    const req = { content_hash: blake3(2), algorithm: BLAKE3 };
    const { stamp } = await unary<{ stamp: Stamp }>(client, "CreateStamp", req, auth);
    expect(stamp.algorithm).toBe(BLAKE3);
    const wrong = { content_hash: `sha256:${"0".repeat(64)}`, algorithm: BLAKE3 };
    await expect(unary(client, "CreateStamp", wrong, auth)).rejects.toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "algorithm: HASH_ALGORITHM_BLAKE3 disagrees with the content_hash prefix sha256",
    });
  });

  it("BatchStamp reports it for each blake3 item", async () => {
    const items = [{ content_hash: blake3(3) }, { content_hash: `sha256:${"3".repeat(64)}` }];
    const { stamps } = await unary<{ stamps: Stamp[] }>(client, "BatchStamp", { items }, auth);
    expect(stamps.map((s) => s.algorithm)).toEqual([BLAKE3, "HASH_ALGORITHM_SHA256"]);
  });

  it("StreamStamps reports it", async () => {
    const call = client.StreamStamps!(auth) as grpc.ClientDuplexStream<object, { stamp: Stamp }>;
    const answers: Stamp[] = [];
    call.on("data", (r) => answers.push(r.stamp));
    const ended = new Promise<grpc.StatusObject>((resolve) => call.once("status", resolve));
    call.write({ content_hash: blake3(4) });
    call.end();
    expect((await ended).code).toBe(Status.OK);
    expect(answers.map((s) => s.algorithm)).toEqual([BLAKE3]);
  });

  it("WatchStamps reports it, and its algorithm=blake3 filter matches", async () => {
    const before = bus.listenerCount;
    const call = client.WatchStamps!(
      { filter: "algorithm=blake3" },
      auth,
    ) as grpc.ClientReadableStream<Stamp>;
    const first = new Promise<Stamp>((resolve) => call.once("data", resolve));
    call.on("error", () => {});
    await bus.waitForListeners(before + 1);
    await unary(client, "CreateStamp", { content_hash: `sha256:${"5".repeat(64)}` }, auth);
    await unary(client, "CreateStamp", { content_hash: blake3(5) }, auth);
    expect(await first).toMatchObject({ content_hash: blake3(5), algorithm: BLAKE3 });
    call.cancel();
    await bus.waitForListeners(before);
  });
});
