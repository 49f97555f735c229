// svc.v1.StampService through a Connect client speaking gRPC (createGrpcTransport) against the
// whole service over HTTP/2: every RPC, the content_hash and filter rules of stamp.proto, batches
// with their progress on the WebSocket batch channel, and status changes on WatchStamps.
import { Code, ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HashAlgorithm, type Stamp, StampStatus } from "../../gen/proto/svc/v1/stamp_pb.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { TestClient } from "../ws/ws-client.js";
import { CountingBus, connectClient, sha3, sha256 } from "./fixture.js";

const bus = new CountingBus();
let svc: RunningService;
let client: ReturnType<typeof connectClient>;
let key: string;

beforeAll(async () => {
  // Merkle batches are sealed only when a test calls tick().
  svc = await startService({ MAX_BATCH_ITEMS: "5", BATCH_INTERVAL_MS: "3600000" }, { events: bus });
  ({ key } = await issueKey(svc, { tier: "internal" }));
  client = connectClient(svc, { "x-api-key": key });
});
afterAll(() => svc.close());

/** The ConnectError a call fails with. */
async function failure(call: Promise<unknown>): Promise<ConnectError> {
  return call.then(
    () => expect.fail("the call succeeded"),
    (err) => ConnectError.from(err),
  );
}

/**
 * Opens a watch and resolves once the server has subscribed to the bus. `stop` cancels it and
 * resolves with its status once the server has given the subscription back.
 */
async function watch(filter: string) {
  const abort = new AbortController();
  const before = bus.listenerCount;
  const received: Stamp[] = [];
  const ended = (async () => {
    for await (const stamp of client.watchStamps({ filter }, { signal: abort.signal })) received.push(stamp);
  })().catch((err) => ConnectError.from(err));
  await bus.waitForListeners(before + 1);
  const stop = async () => {
    abort.abort();
    const status = await ended;
    await bus.waitForListeners(before);
    return status;
  };
  return { received, stop };
}

/** Resolves once `list` has `n` entries. */
async function until<T>(list: T[], n: number): Promise<T[]> {
  while (list.length < n) await new Promise((resolve) => setTimeout(resolve, 5));
  return list;
}

describe("CreateStamp", () => {
  it("returns the stamp PENDING without proof, hex lower-cased, algorithm from the prefix", async () => {
    const { stamp } = await client.createStamp({
      contentHash: `sha256:${"AB".repeat(32)}`,
      description: "contract",
      metadata: { project: "alpha" },
    });
    expect(stamp).toMatchObject({
      contentHash: `sha256:${"ab".repeat(32)}`,
      algorithm: HashAlgorithm.SHA256,
      status: StampStatus.PENDING,
      description: "contract",
      metadata: { project: "alpha" },
    });
    expect(stamp?.proof).toBeUndefined();
    expect(stamp?.id).toMatch(/^stp_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("reports blake3 as HASH_ALGORITHM_BLAKE3", async () => {
    const { stamp } = await client.createStamp({ contentHash: `blake3:${"0".repeat(64)}` });
    expect(stamp?.algorithm).toBe(HashAlgorithm.BLAKE3);
    expect(stamp?.contentHash).toBe(`blake3:${"0".repeat(64)}`);
  });

  it("accepts an algorithm that agrees with the prefix and refuses one that does not", async () => {
    const hash = sha3("agree");
    const { stamp } = await client.createStamp({ contentHash: hash, algorithm: HashAlgorithm.SHA3_256 });
    expect(stamp?.algorithm).toBe(HashAlgorithm.SHA3_256);
    const err = await failure(client.createStamp({ contentHash: hash, algorithm: HashAlgorithm.SHA256 }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe(
      "algorithm: HASH_ALGORITHM_SHA256 disagrees with the content_hash prefix sha3-256",
    );
  });

  it.each([
    ["", "content_hash: required, as <algorithm>:<hex digest>"],
    ["0".repeat(64), 'content_hash: missing the "<algorithm>:" prefix (expected sha3-256, sha256 or blake3)'],
    [`md5:${"0".repeat(32)}`, 'content_hash: unknown algorithm "md5" (expected sha3-256, sha256 or blake3)'],
    [
      `SHA256:${"0".repeat(64)}`,
      'content_hash: unknown algorithm "SHA256" (expected sha3-256, sha256 or blake3)',
    ],
    [`sha256:${"0".repeat(63)}g`, 'content_hash: sha256 digest has a non-hex character "g"'],
    [`sha256:${"0".repeat(63)}`, "content_hash: sha256 digest must be 64 hex digits, got 63"],
  ])("content_hash %j is INVALID_ARGUMENT: %s", async (contentHash, message) => {
    const err = await failure(client.createStamp({ contentHash }));
    expect(err.code).toBe(Code.InvalidArgument);
    expect(err.rawMessage).toBe(message);
  });

  it("applies the domain's limits on description and metadata", async () => {
    const long = await failure(client.createStamp({ contentHash: sha3("x"), description: "x".repeat(1001) }));
    expect(long).toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "description must be at most 1000 characters",
    });
    const metadata = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"]));
    const many = await failure(client.createStamp({ contentHash: sha3("x"), metadata }));
    expect(many.code).toBe(Code.InvalidArgument);
  });
});

describe("GetStamp and Verify", () => {
  it("GetStamp answers the stamp; unknown NOT_FOUND, empty INVALID_ARGUMENT", async () => {
    const { stamp } = await client.createStamp({ contentHash: sha3("get") });
    expect((await client.getStamp({ stampId: stamp!.id })).stamp).toEqual(stamp);
    expect((await failure(client.getStamp({ stampId: `stp_${"0".repeat(26)}` }))).code).toBe(Code.NotFound);
    expect(await failure(client.getStamp({ stampId: "" }))).toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "stamp_id: required",
    });
  });

  it("Verify explains its answer", async () => {
    const hash = sha256("verify");
    const { stamp } = await client.createStamp({ contentHash: hash });
    const verify = (contentHash: string) => client.verify({ stampId: stamp!.id, contentHash });
    expect(await verify("")).toMatchObject({
      verified: true,
      stampId: stamp!.id,
      contentHash: hash,
      timestamp: stamp!.timestamp,
      message: "stamp signature valid; content hash not checked",
    });
    expect(await verify(hash.toUpperCase().replace("SHA256", "sha256"))).toMatchObject({
      verified: true,
      message: "content hash matches",
    });
    expect(await verify(sha3("verify"))).toMatchObject({
      verified: false,
      message: "algorithm differs: stamp uses sha256",
    });
    expect((await failure(verify("sha256:nothex"))).code).toBe(Code.InvalidArgument);
    expect((await failure(client.verify({ stampId: `stp_${"1".repeat(26)}` }))).code).toBe(Code.NotFound);
  });
});

describe("BatchStamp", () => {
  it("stamps the valid items in order; failed ones are counted and do not fail the batch", async () => {
    let batchId: string | null = null;
    const res = await client.batchStamp(
      {
        items: [
          { contentHash: sha3("b1"), metadata: { n: "1" } },
          { contentHash: "sha3-256:00" },
          { contentHash: sha3("b3"), algorithm: HashAlgorithm.SHA256 },
          { contentHash: sha3("b4"), description: "x".repeat(1001) },
          { contentHash: sha256("b5") },
        ],
      },
      { onHeader: (h) => (batchId = h.get("x-batch-id")) },
    );
    expect(res.successCount).toBe(2);
    expect(res.failedCount).toBe(3);
    expect(res.stamps.map((s) => s.contentHash)).toEqual([sha3("b1"), sha256("b5")]);
    expect(batchId).toMatch(/^sbt_[0-9A-HJKMNP-TV-Z]{26}$/);
    // The same stamps as any other: readable over REST.
    const rest = await fetch(`${svc.baseUrl}/stamps/${res.stamps[0]!.id}`);
    expect(rest.status).toBe(200);
  });

  it("refuses more than MAX_BATCH_ITEMS items and creates nothing", async () => {
    const seen: AnyDomainEvent[] = [];
    const stop = bus.subscribe((e) => seen.push(e));
    const items = Array.from({ length: 6 }, (_, i) => ({ contentHash: sha3(`many ${i}`) }));
    const err = await failure(client.batchStamp({ items }));
    stop();
    expect(err).toMatchObject({
      code: Code.InvalidArgument,
      rawMessage: "items: at most 5 per BatchStamp, got 6",
    });
    expect(seen).toEqual([]);
  });

  it.each([
    ["sbt_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8", "its prefix"],
    // Stamping batches shared bat_ with Merkle batches until 2026-11 (docs/design.md, Identifiers).
    ["bat_01JD3M6ZK8Q2V7W9X4Y5Z6A7B9", "the former prefix bat_, still accepted"],
  ])(
    "reports progress on the WebSocket batch channel under the batch id the client chose: %s (%s)",
    async (batchId) => {
      const ws = await TestClient.connect(svc.baseUrl);
      await ws.subscribe("batch", { batch_id: batchId });
      const items = Array.from({ length: 4 }, (_, i) => ({ contentHash: sha3(`progress ${batchId} ${i}`) }));
      let echoed: string | null = null;
      await client.batchStamp(
        { items },
        { headers: { "x-batch-id": batchId }, onHeader: (h) => (echoed = h.get("x-batch-id")) },
      );
      expect(echoed).toBe(batchId);
      const events = (await ws.drain()).filter((m) => m.type === "batch_progress");
      // Four items: an event for each (every 10 % or 100 items, whichever is fewer, at least one).
      expect(events.map((m) => m.data)).toEqual(
        [1, 2, 3, 4].map((processed) => ({ batchId, processed, total: 4, percentage: 25 * processed })),
      );
      ws.close();
    },
  );

  it("an empty batch creates nothing and still reports 100 %", async () => {
    const seen: AnyDomainEvent[] = [];
    const stop = bus.subscribe((e) => seen.push(e));
    const res = await client.batchStamp({ items: [] });
    stop();
    expect(res).toMatchObject({ stamps: [], successCount: 0, failedCount: 0 });
    expect(seen.map((e) => [e.type, e.data])).toEqual([
      ["batch_progress", expect.objectContaining({ processed: 0, total: 0, percentage: 100 })],
    ]);
  });

  it("a malformed x-batch-id is INVALID_ARGUMENT", async () => {
    const err = await failure(client.batchStamp({ items: [] }, { headers: { "x-batch-id": "batch-1" } }));
    expect(err.rawMessage).toBe("x-batch-id: must be sbt_ (or bat_) followed by a 26-character ULID");
  });
});

describe("WatchStamps", () => {
  it("sends the stamps its filter matches, from every transport", async () => {
    const w = await watch("project=alpha algorithm=sha256");
    await client.createStamp({ contentHash: sha256("w1"), metadata: { project: "alpha" } });
    await client.createStamp({ contentHash: sha3("w2"), metadata: { project: "alpha" } });
    await client.createStamp({ contentHash: sha256("w3"), metadata: { project: "beta" } });
    const ws = await TestClient.connect(svc.baseUrl, { headers: { "x-api-key": key } });
    await ws.expectReply("stamp_created", {
      type: "stamp",
      data: { contentHash: sha256("w4"), metadata: { project: "alpha" } },
    });
    ws.close();
    await until(w.received, 2);
    expect((await w.stop())?.code).toBe(Code.Canceled);
    expect(w.received.map((s) => s.contentHash)).toEqual([sha256("w1"), sha256("w4")]);
  });

  it("sends a stamp again when its status changes, with its proof", async () => {
    const w = await watch("status=confirmed project=proof");
    const { stamp } = await client.createStamp({
      contentHash: sha3("confirm me"),
      metadata: { project: "proof" },
    });
    await svc.service.proofs.pipeline.tick();
    const [confirmed] = await until(w.received, 1);
    await w.stop();
    expect(confirmed).toMatchObject({ id: stamp!.id, status: StampStatus.CONFIRMED });
    expect(confirmed!.proof?.merkleRoot).toMatch(/^[0-9a-f]{64}$/);
    expect(confirmed!.proof?.primeSignature).toMatch(/^[0-9a-f]{128}$/);
  });

  it.each([
    ["project", 'filter: term "project" is not name=value'],
    ["=alpha", 'filter: term "=alpha" has an empty name'],
    ["status=done", 'filter: unknown status "done" (expected pending, confirmed or anchored)'],
    ["algorithm=md5", 'filter: unknown algorithm "md5" (expected sha3-256, sha256 or blake3)'],
  ])("filter %j is INVALID_ARGUMENT", async (filter, message) => {
    const err = await failure(
      (async () => {
        for await (const _ of client.watchStamps({ filter })) break;
      })(),
    );
    expect(err).toMatchObject({ code: Code.InvalidArgument, rawMessage: message });
  });

  it("ends open watches with UNAVAILABLE when the server shuts down, within the grace period", async () => {
    const ownBus = new CountingBus();
    const own = await startService({}, { events: ownBus });
    const before = ownBus.listenerCount;
    const ended = (async () => {
      for await (const _ of connectClient(own).watchStamps({ filter: "" }));
    })().catch((err) => ConnectError.from(err));
    await ownBus.waitForListeners(before + 1);
    await own.service.grpc.shutdown(5000);
    expect((await ended)?.code).toBe(Code.Unavailable);
    expect(ownBus.listenerCount).toBe(before);
    await own.close();
  });
});

describe("StreamStamps", () => {
  it("answers in request order with sequence numbers from 1, interleaved with the requests", async () => {
    const answered: number[] = [];
    const hashes = Array.from({ length: 20 }, (_, i) => sha256(`stream ${i}`));
    async function* requests() {
      for (const [i, contentHash] of hashes.entries()) {
        // Flow control: the next request is sent only after the previous answer arrived.
        if (i > 0) await until(answered, i);
        yield { contentHash, metadata: { i: String(i) } };
      }
    }
    const stamps: string[] = [];
    for await (const res of client.streamStamps(requests())) {
      answered.push(res.sequence);
      stamps.push(res.stamp!.contentHash);
    }
    expect(answered).toEqual(hashes.map((_, i) => i + 1));
    expect(stamps).toEqual(hashes);
  });
});
