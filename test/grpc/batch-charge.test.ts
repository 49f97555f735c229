// Rate limiting of many stamps in one gRPC call (stamp.proto, Rate limiting: Bulk items): a
// BatchStamp call, and the start of a StreamStamps call, cost one /stamps request; each item costs
// one item of the caller's bulk items budget (anonymous 60 a minute, authenticated 10 000), whose
// figures the call's metadata carries. A batch larger than one charge may hold is refused at once.
// Before issue #36 every item cost a full request: an authenticated key could send 7 items a call.
import { Code, ConnectError } from "@connectrpc/connect";
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
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { testServiceKeys } from "../helpers/service-keys.js";
import { connectClient, sha3 } from "./fixture.js";

const items = (n: number, tag: string) =>
  Array.from({ length: n }, (_, i) => ({ contentHash: sha3(`${tag} ${i}`) }));
const itemsHeaders = (h: Headers) => ({
  limit: h.get("x-ratelimit-items-limit"),
  remaining: h.get("x-ratelimit-items-remaining"),
});

describe("BatchStamp's items budget", () => {
  let svc: RunningService;
  beforeAll(async () => {
    // A manual clock: nothing comes back while a test runs.
    svc = await startService({}, { clock: new ManualClock() });
  });
  afterAll(() => svc.close());

  it("anonymous: refuses a batch over one charge at once, charging nothing; then the budget's 60 items pass and the 61st waits", async () => {
    const client = connectClient(svc, { "x-forwarded-for": "192.0.2.60" });
    const big = await client
      .batchStamp({ items: items(61, "big") })
      .catch((e: unknown) => ConnectError.from(e));
    expect(big).toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage:
        "item limit: 61 items but tier anonymous covers at most 60 in one call; send at most 60 items a call",
    });
    expect((big as ConnectError).metadata.get("grpc-retry-pushback-ms")).toBeNull();
    expect((big as ConnectError).metadata.get("x-ratelimit-items-limit")).toBe("60");
    let headers = new Headers();
    const res = await client.batchStamp({ items: items(60, "sixty") }, { onHeader: (h) => (headers = h) });
    expect(res.successCount).toBe(60);
    expect(itemsHeaders(headers)).toEqual({ limit: "60", remaining: "0" });
    const more = await client
      .batchStamp({ items: items(2, "later") })
      .catch((e: unknown) => ConnectError.from(e));
    expect(more).toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage: expect.stringMatching(
        /^Item limit exceeded for tier anonymous \(60 items a minute\)\. Retry after \d+ seconds, when the budget covers all 2 items\.$/,
      ),
    });
    const refused = more as ConnectError;
    expect(Number(refused.metadata.get("grpc-retry-pushback-ms"))).toBeGreaterThan(0);
    expect(itemsHeaders(refused.metadata)).toEqual({ limit: "60", remaining: "0" });
  });

  it("authenticated: a batch of MAX_BATCH_ITEMS (1000) passes as one request and 1000 items of 10 000", async () => {
    const { key } = await issueKey(svc);
    const client = connectClient(svc, { authorization: `Bearer ${key}` });
    let headers = new Headers();
    const res = await client.batchStamp(
      { items: items(1000, "archive") },
      { onHeader: (h) => (headers = h) },
    );
    expect(res.successCount).toBe(1000);
    expect(itemsHeaders(headers)).toEqual({ limit: "10000", remaining: "9000" });
    // The request budget paid 2.0 of its 15: a plain CreateStamp still passes.
    await expect(client.createStamp({ contentHash: sha3("one more") })).resolves.toBeDefined();
  });

  it("StreamStamps: the 61st anonymous request ends the call, its trailers say none are left", async () => {
    const client = connectClient(svc, { "x-forwarded-for": "192.0.2.61" });
    const made: number[] = [];
    const call = (async () => {
      const requests = (async function* () {
        yield* items(100, "stream");
      })();
      for await (const r of client.streamStamps(requests)) made.push(r.sequence);
    })();
    const error = await call.then(
      () => expect.fail("all 100 passed"),
      (e: unknown) => ConnectError.from(e),
    );
    expect(made).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(error.rawMessage).toMatch(/^request 61: Item limit exceeded for tier anonymous/);
    // Once (Headers.get would join two), though the call also set it after its group's charges.
    expect(error.metadata.get("x-ratelimit-items-remaining")).toBe("0");
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

  it("are charged as bulk items: an anonymous caller's 100 requests make 60 stamps", async () => {
    const limiter = await openRateLimiter(config, { logger: createLogger(config), clock });
    const deps = { stamps, limits: new CallLimits(limiter) };
    const inputs = items(100, "group").map((i) => ({ ...i, metadata: {} }));
    const { views, failure, items: left } = await stampGroup(deps, anonymous("ip:192.0.2.7"), inputs, 1);
    expect(views).toHaveLength(60);
    expect(left).toMatchObject({ "x-ratelimit-items-remaining": "0" });
    expect(failure).toMatchObject({
      code: Code.ResourceExhausted,
      rawMessage: expect.stringMatching(
        /^request 61: Item limit exceeded for tier anonymous \(60 items a minute\)\. Retry after \d+ seconds\.$/,
      ),
    });
    await limiter?.close();
  });
});
