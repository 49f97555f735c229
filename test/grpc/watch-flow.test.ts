// WatchStamps under load: a reader that keeps up gets every stamp of a full batch; a reader that
// stops reading is ended with RESOURCE_EXHAUSTED instead of growing the server's memory.
import type * as grpc from "@grpc/grpc-js";
import { status as Status } from "@grpc/grpc-js";
import { afterAll, beforeAll, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { CountingBus, connectClient, grpcJsStampClient, metadata, sha256 } from "./fixture.js";

const BUFFER = 100;
const bus = new CountingBus();
let svc: RunningService;
let key: string;

beforeAll(async () => {
  // Rate limits are not under test here; Merkle batches are sealed only when a test calls tick().
  const env = {
    GRPC_WATCH_BUFFER: String(BUFFER),
    BATCH_INTERVAL_MS: "3600000",
    RATE_LIMIT_ENABLED: "false",
  };
  svc = await startService(env, { events: bus });
  ({ key } = await issueKey(svc, { tier: "internal" }));
});
afterAll(() => svc.close());

const batchOf = (n: number, tag: string) =>
  connectClient(svc, { "x-api-key": key }).batchStamp({
    items: Array.from({ length: n }, (_, i) => ({ contentHash: sha256(`${tag} ${i}`) })),
  });

it("a reader that stops reading is ended with RESOURCE_EXHAUSTED and unsubscribed", async () => {
  const before = bus.listenerCount;
  const client = grpcJsStampClient(svc);
  const call = client.WatchStamps!(
    { filter: "" },
    metadata({ "x-api-key": key }),
  ) as grpc.ClientReadableStream<{
    id: string;
  }>;
  let received = 0;
  call.on("data", () => received++);
  // Reads the first stamp, then stops reading: HTTP/2 flow control soon stops the server's writes.
  call.once("data", () => call.pause());
  const ended = new Promise<grpc.ServiceError>((resolve) => call.once("error", resolve));
  await bus.waitForListeners(before + 1);
  let created = 0;
  while (bus.listenerCount > before) {
    created += (await batchOf(200, `stalled ${created}`)).successCount;
  }
  call.resume();
  const error = await ended;
  expect(error.code).toBe(Status.RESOURCE_EXHAUSTED);
  expect(error.details).toContain(`fell more than ${BUFFER} stamp events behind`);
  expect(received).toBeLessThan(created);
  client.close();
});

it("with the default buffer, a reader keeps up with full batches and a whole Merkle batch confirming", async () => {
  const ownBus = new CountingBus();
  const own = await startService(
    { BATCH_INTERVAL_MS: "3600000", RATE_LIMIT_ENABLED: "false" },
    { events: ownBus },
  );
  const client = connectClient(own);
  const before = ownBus.listenerCount;
  const abort = new AbortController();
  const statuses: number[] = [];
  const watching = (async () => {
    for await (const stamp of client.watchStamps({ filter: "" }, { signal: abort.signal })) {
      statuses.push(stamp.status);
      if (statuses.length === 6000) abort.abort();
    }
  })().catch((err) => err);
  await ownBus.waitForListeners(before + 1);
  for (let round = 0; round < 3; round++) {
    const items = Array.from({ length: 1000 }, (_, i) => ({ contentHash: sha256(`full ${round} ${i}`) }));
    expect((await client.batchStamp({ items })).successCount).toBe(1000);
  }
  // One pass seals all 3000 in one Merkle batch: 3000 stamp_confirmed events at once.
  await own.service.proofs.pipeline.tick();
  const ended = await watching;
  expect(ended.code).toBe(1); // CANCELLED: the reader stopped after the 6000th stamp, not the server.
  expect(statuses.filter((s) => s === 1)).toHaveLength(3000);
  expect(statuses.filter((s) => s === 2)).toHaveLength(3000);
  await own.close();
});
