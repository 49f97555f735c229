// Rate limiting of many stamps in one gRPC call: each item of a BatchStamp and each StreamStamps
// request is charged the full `/stamps` weight. A charge larger than the tier's bucket is refused
// (it used to be counted as one bucket: an anonymous caller stamped 1000 items with one call).
import type * as grpc from "@grpc/grpc-js";
import { status as Status } from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anchorAvailability } from "../../server/anchors/availability.js";
import { anonymous } from "../../server/auth/principal.js";
import { ManualClock } from "../../server/clock.js";
import { loadConfig } from "../../server/config.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { CallLimits } from "../../server/grpc/call-limits.js";
import { stampGroup } from "../../server/grpc/stream-stamping.js";
import { createLogger } from "../../server/logger.js";
import { StampEvidenceSource } from "../../server/proofs/stamp-evidence.js";
import { openRateLimiter } from "../../server/ratelimit/open.js";
import { createStampDomain } from "../../server/stamps/domain.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { unary } from "../helpers/grpc-js.js";
import { type RunningService, startService } from "../helpers/service.js";
import { testServiceKeys } from "../helpers/service-keys.js";
import { grpcJsStampClient, metadata, sha3 } from "./fixture.js";

const items = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ content_hash: sha3(`${tag} ${i}`) }));

describe("BatchStamp (anonymous: burst 5, a stamp costs 2.0)", () => {
  let svc: RunningService;
  beforeAll(async () => {
    // A manual clock: no tokens come back while a test runs.
    svc = await startService({}, { clock: new ManualClock() });
  });
  afterAll(() => svc.close());

  it("refuses a batch its tier's bucket cannot hold, charging nothing; one it can hold passes", async () => {
    const client = grpcJsStampClient(svc);
    const md = metadata({});
    await expect(unary(client, "BatchStamp", { items: items(1000, "big") }, md)).rejects.toMatchObject({
      code: Status.RESOURCE_EXHAUSTED,
      details:
        "rate limit: 1000 stamps cost 2000 (2 each) but tier anonymous covers at most 2 in one call; " +
        "send at most 2 items a call",
    });
    const three = await unary(client, "BatchStamp", { items: items(3, "three") }, md).catch(
      (e: grpc.ServiceError) => e,
    );
    expect(three).toMatchObject({ code: Status.RESOURCE_EXHAUSTED });
    // Nothing was taken: the whole burst is still there for two items (4.0 of 5).
    const res = await unary<{ success_count: number }>(client, "BatchStamp", { items: items(2, "two") }, md);
    expect(res.success_count).toBe(2);
    // 1.0 left: two more items (4.0) are refused, with when to retry.
    const error = await unary<never>(client, "BatchStamp", { items: items(2, "later") }, md).catch(
      (e: grpc.ServiceError) => e,
    );
    expect(error.code).toBe(Status.RESOURCE_EXHAUSTED);
    expect(error.details).toMatch(
      /^Rate limit exceeded for tier anonymous\. Retry after \d+ seconds, when the budget covers all 2 stamps\.$/,
    );
    expect(Number(error.metadata.get("grpc-retry-pushback-ms")[0])).toBeGreaterThan(0);
    client.close();
  });
});

describe("StreamStamps requests stamped as one group", () => {
  const config = loadConfig({ LOG_LEVEL: "silent" });
  const store = new SqliteStore(":memory:");
  const clock = new ManualClock();
  const evidence = new StampEvidenceSource(
    store.proofs,
    store.anchors,
    store.log,
    anchorAvailability(config),
  );
  const stamps = createStampDomain({
    store,
    keys: testServiceKeys(),
    clock,
    events: new MemoryEventBus(),
    evidence,
  }).service;
  beforeAll(() => store.migrate());
  afterAll(() => store.close());

  it("are each charged in full: an anonymous caller's ten requests make two stamps", async () => {
    const limiter = await openRateLimiter(config, { logger: createLogger(config), clock });
    const deps = { stamps, limits: new CallLimits(limiter) };
    const inputs = items(10, "stream").map((i) => ({ contentHash: i.content_hash, metadata: {} }));
    const { views, failure } = await stampGroup(deps, anonymous("ip:192.0.2.7"), inputs, 1);
    expect(views).toHaveLength(2);
    expect(failure).toMatchObject({
      code: Status.RESOURCE_EXHAUSTED,
      rawMessage: expect.stringMatching(
        /^request 3: Rate limit exceeded for tier anonymous\. Retry after \d+ seconds\.$/,
      ),
    });
    await limiter?.close();
  });
});
