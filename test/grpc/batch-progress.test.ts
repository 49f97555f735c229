// batch_progress of gRPC batches as a WebSocket subscriber of the `batch` channel sees it (the ws
// package): during a BatchStamp, every 10 % or 100 items (whichever is fewer) and 100 % once the
// stamps are stored; during a StreamStamps call given x-batch-id, every 100 requests and 100 % when
// it ends. Batches are sent by @grpc/grpc-js, an independent client.
import type * as grpc from "@grpc/grpc-js";
import { status as Status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ServerMessage } from "../../gen/asyncapi/index.js";
import { type GrpcJsClient, unary } from "../helpers/grpc-js.js";
import { type RunningService, startService } from "../helpers/service.js";
import { TestClient } from "../ws/ws-client.js";
import { grpcJsStampClient, metadata, sha256 } from "./fixture.js";

interface Progress {
  batchId: string;
  processed: number;
  total: number;
  percentage: number;
}

let svc: RunningService;
let client: GrpcJsClient;

beforeAll(async () => {
  // Batches this size are over every tier's budget per call: this suite is about progress.
  svc = await startService({ RATE_LIMIT_ENABLED: "false", MAX_BATCH_ITEMS: "1000" });
  client = grpcJsStampClient(svc);
});
afterAll(async () => {
  client.close();
  await svc.close();
});

let serial = 0;
/** A fresh batch id (`sbt_` and a ULID-shaped 26 characters). */
const batchId = () => `sbt_01JD3M6ZK8Q2V7W9X4Y5Z6${String(++serial).padStart(4, "0")}`;

/** Subscribes to a batch's channel; `events()` resolves with its progress up to the 100 % event. */
async function subscriber(id: string) {
  const ws = await TestClient.connect(svc.baseUrl);
  await ws.subscribe("batch", { batch_id: id });
  return {
    async events(): Promise<Progress[]> {
      const seen: Progress[] = [];
      for (;;) {
        const message = (await ws.next()) as ServerMessage;
        if (message.type !== "batch_progress") continue;
        seen.push(message.data);
        if (message.data.percentage === 100) break;
      }
      ws.close();
      return seen;
    },
  };
}

/** The gaps between consecutive events, from 0 to the last. */
const gaps = (events: Progress[]) =>
  events.map((e, i) => e.processed - (i === 0 ? 0 : events[i - 1]!.processed));

describe("BatchStamp", () => {
  it("reports a 1000-item batch every 100 items, monotone, ending at 100 % after the stamps exist", async () => {
    const id = batchId();
    const ws = await subscriber(id);
    const items = Array.from({ length: 1000 }, (_, i) => ({
      content_hash: i === 500 ? "sha256:bad" : sha256(`progress ${i}`),
    }));
    const res = await unary<{ success_count: number; failed_count: number; stamps: { id: string }[] }>(
      client,
      "BatchStamp",
      { items },
      metadata({ "x-batch-id": id }),
    );
    expect(res).toMatchObject({ success_count: 999, failed_count: 1 });
    const events = await ws.events();
    expect(events.map((e) => e.processed)).toEqual([100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
    for (const e of events) {
      expect(e).toEqual({ batchId: id, processed: e.processed, total: 1000, percentage: e.processed / 10 });
    }
    expect(Math.max(...gaps(events))).toBeLessThanOrEqual(100);
    // The 100 % event promises stored stamps: they are readable.
    expect((await fetch(`${svc.baseUrl}/stamps/${res.stamps.at(-1)!.id}`)).status).toBe(200);
  });

  it.each([
    [250, 25],
    [15, 1],
    [1, 1],
  ])("reports a %i-item batch every %i items (a tenth), ending at 100 percent", async (n, step) => {
    const id = batchId();
    const ws = await subscriber(id);
    const items = Array.from({ length: n }, (_, i) => ({ content_hash: sha256(`small ${n} ${i}`) }));
    await unary(client, "BatchStamp", { items }, metadata({ "x-batch-id": id }));
    const events = await ws.events();
    expect(events.map((e) => e.processed)).toEqual(
      Array.from({ length: n / step }, (_, i) => (i + 1) * step),
    );
    expect(events.at(-1)).toEqual({ batchId: id, processed: n, total: n, percentage: 100 });
  });
});

describe("StreamStamps with x-batch-id", () => {
  it("reports every 100 requests and 100 % when the call ends OK, under the id it echoes", async () => {
    const id = batchId();
    const ws = await subscriber(id);
    const call = client.StreamStamps!(metadata({ "x-batch-id": id })) as grpc.ClientDuplexStream<
      object,
      { sequence: number }
    >;
    let echoed: unknown;
    call.on("metadata", (md) => (echoed = md.get("x-batch-id")[0]));
    let answers = 0;
    call.on("data", () => answers++);
    const ended = new Promise<grpc.StatusObject>((resolve) => call.once("status", resolve));
    for (let i = 0; i < 250; i++) call.write({ content_hash: sha256(`streamed ${i}`) });
    call.end();
    expect((await ended).code).toBe(Status.OK);
    expect(answers).toBe(250);
    expect(echoed).toBe(id);
    const events = await ws.events();
    expect(events.map((e) => e.processed)).toEqual([100, 200, 250]);
    expect(events.at(-1)).toEqual({ batchId: id, processed: 250, total: 250, percentage: 100 });
    // The total is what has been received so far: never less than what was processed.
    for (const e of events) expect(e.total).toBeGreaterThanOrEqual(e.processed);
  });

  it("a malformed x-batch-id is INVALID_ARGUMENT", async () => {
    const call = client.StreamStamps!(metadata({ "x-batch-id": "batch-1" })) as grpc.ClientDuplexStream<
      object,
      unknown
    >;
    const error = new Promise<grpc.ServiceError>((resolve) => call.once("error", resolve));
    call.write({ content_hash: sha256("x") });
    call.end();
    expect(await error).toMatchObject({
      code: Status.INVALID_ARGUMENT,
      details: "x-batch-id: must be sbt_ (or bat_) followed by a 26-character ULID",
    });
  });
});
