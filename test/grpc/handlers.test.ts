// StampService below the network: the implementation class driven directly (flow control of
// StreamStamps, the clock's time in Timestamp), and in memory through Connect's router transport
// with the same interceptors the server installs (auth, error mapping).
import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  Code,
  ConnectError,
  createClient,
  createContextValues,
  createHandlerContext,
  createRouterTransport,
} from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  StampService,
  type StreamStampRequest,
  StreamStampRequestSchema,
} from "../../gen/proto/svc/v1/stamp_pb.js";
import { anchorAvailability } from "../../server/anchors/availability.js";
import { createAuthenticator } from "../../server/auth/authenticator.js";
import { anonymous } from "../../server/auth/principal.js";
import { ManualClock } from "../../server/clock.js";
import { loadConfig } from "../../server/config.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { MemoryEventBus } from "../../server/events/memory-bus.js";
import { authInterceptor } from "../../server/grpc/auth-interceptor.js";
import { CallLimits } from "../../server/grpc/call-limits.js";
import { principalKey } from "../../server/grpc/context-keys.js";
import { errorInterceptor } from "../../server/grpc/error-interceptor.js";
import { StampHandlers } from "../../server/grpc/stamp-service.js";
import { Readiness } from "../../server/health/readiness.js";
import { createLogger } from "../../server/logger.js";
import { StampEvidenceSource } from "../../server/proofs/stamp-evidence.js";
import { createStampDomain } from "../../server/stamps/domain.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { testServiceKeys } from "../helpers/service-keys.js";
import { sha256 } from "./fixture.js";

const config = loadConfig({ LOG_LEVEL: "silent" });
const store = new SqliteStore(":memory:");
const clock = new ManualClock("2026-03-04T05:06:07.089Z");
const events = new MemoryEventBus();
const evidence = new StampEvidenceSource(store.proofs, store.anchors, store.log, anchorAvailability(config));
const { service: stamps, search } = createStampDomain({
  store,
  keys: testServiceKeys(),
  clock,
  events,
  evidence,
});
const handlerDeps = {
  stamps,
  search,
  events,
  limits: new CallLimits(undefined),
  readiness: new Readiness(),
  maxBatchItems: 1000,
  watchBuffer: 100,
};
const handlers = new StampHandlers(handlerDeps);

beforeAll(() => store.migrate());
afterAll(() => store.close());

function handlerContext(method: string) {
  return createHandlerContext({
    service: StampService,
    method: StampService.method[method as keyof typeof StampService.method],
    protocolName: "grpc",
    requestMethod: "POST",
    url: `http://in-memory/svc.v1.StampService/${method}`,
    contextValues: createContextValues().set(principalKey, anonymous("ip:192.0.2.1")),
  });
}

describe("StampHandlers (the implementation class)", () => {
  it("StreamStamps reads at most MAX_BATCH_ITEMS requests ahead of the answers taken", async () => {
    const window = 3;
    const windowed = new StampHandlers({ ...handlerDeps, maxBatchItems: window });
    let read = 0;
    async function* requests(): AsyncGenerator<StreamStampRequest> {
      for (let i = 1; i <= 100; i++) {
        read++;
        yield create(StreamStampRequestSchema, { contentHash: sha256(`ahead ${i}`) });
      }
    }
    const answers = windowed.streamStamps(requests(), handlerContext("streamStamps"));
    expect((await answers.next()).value?.sequence).toBe(1);
    await settle();
    // The rest of the answered group (< window) and a full window waiting to be stamped.
    expect(read).toBeLessThanOrEqual(1 + 2 * window);
    for (let taken = 2; taken <= 10; taken++) expect((await answers.next()).value?.sequence).toBe(taken);
    await settle();
    expect(read).toBeLessThanOrEqual(10 + 2 * window);
    await answers.return(undefined);
  });

  it("StreamStamps stamps the requests read together as one batch, in order", async () => {
    const sent = Array.from({ length: 20 }, (_, i) => sha256(`together ${i}`));
    async function* requests(): AsyncGenerator<StreamStampRequest> {
      for (const contentHash of sent) yield create(StreamStampRequestSchema, { contentHash });
    }
    const answers = [];
    for await (const answer of handlers.streamStamps(requests(), handlerContext("streamStamps"))) {
      answers.push(answer);
    }
    expect(answers.map((a) => a.sequence)).toEqual(sent.map((_, i) => i + 1));
    expect(answers.map((a) => a.stamp!.contentHash)).toEqual(sent);
    const signatures = await Promise.all(
      answers.map(async (a) => (await stamps.get(a.stamp!.id)).stamp.document.signatures),
    );
    expect(signatures.every((s) => s.service === null && s.service_batch !== undefined)).toBe(true);
    // Requests that were waiting when a group started share its tree: fewer roots than stamps.
    expect(new Set(signatures.map((s) => s.service_batch!.root)).size).toBeLessThan(sent.length);
  });

  it.each([
    ["malformed content_hash", { contentHash: "sha256:12" }, "request 3: content_hash:"],
    [
      "33 metadata keys",
      { metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, "v"])) },
      "request 3: metadata may have at most 32 keys",
    ],
  ])(
    "StreamStamps refuses a bad request read with others (%s): the earlier are answered, the later not made",
    async (_name, bad, message) => {
      const hashes = Array.from({ length: 5 }, (_, i) => sha256(`group ${_name} ${i}`));
      async function* requests(): AsyncGenerator<StreamStampRequest> {
        for (const [i, contentHash] of hashes.entries()) {
          yield create(StreamStampRequestSchema, { contentHash, ...(i === 2 ? bad : {}) });
        }
      }
      const sequences: number[] = [];
      const failure = (async () => {
        for await (const answer of handlers.streamStamps(requests(), handlerContext("streamStamps"))) {
          sequences.push(answer.sequence);
        }
      })();
      await expect(failure).rejects.toThrow(message);
      expect(sequences).toEqual([1, 2]);
      const stored = (hash: string) =>
        (
          store.db.prepare("SELECT count(*) AS n FROM stamps WHERE document_hash = ?").get(hash.slice(7)) as {
            n: number;
          }
        ).n;
      expect(hashes.map(stored)).toEqual([1, 1, 0, 0, 0]);
    },
  );

  it("BatchStamp reports progress every tenth of its items, refused ones included, 100 % once stored", async () => {
    const progress: unknown[] = [];
    const stop = events.subscribe((e) => {
      if (e.type === "batch_progress") progress.push(e.data);
    });
    const items = Array.from({ length: 250 }, (_, i) => ({ contentHash: i === 7 ? "bad" : sha256(`p${i}`) }));
    const res = await handlers.batchStamp(
      create(StampService.method.batchStamp.input, { items }),
      handlerContext("batchStamp"),
    );
    stop();
    expect(res).toMatchObject({ successCount: 249, failedCount: 1 });
    expect(progress).toEqual(
      Array.from({ length: 10 }, (_, i) => ({
        batchId: expect.stringMatching(/^sbt_[0-9A-HJKMNP-TV-Z]{26}$/),
        processed: 25 * (i + 1),
        total: 250,
        percentage: 10 * (i + 1),
      })),
    );
  });

  it("stamps carry the domain clock's time as a protobuf Timestamp, to the millisecond", async () => {
    const res = await handlers.createStamp(
      create(StampService.method.createStamp.input, { contentHash: sha256("clock") }),
      handlerContext("createStamp"),
    );
    expect(timestampDate(res.stamp!.timestamp!).toISOString()).toBe("2026-03-04T05:06:07.089Z");
  });
});

describe("in memory, through Connect's router transport and the server's interceptors", () => {
  const auth = createAuthenticator(config, store, clock);
  const transport = createRouterTransport((router) => router.service(StampService, handlers), {
    router: { interceptors: [errorInterceptor(createLogger(config)), authInterceptor(auth)] },
  });

  it("puts the caller's account on the stamp (the event's scope)", async () => {
    const { key, accountId } = await auth.keys.create({ tier: "authenticated" });
    const seen: AnyDomainEvent[] = [];
    const stop = events.subscribe((e) => seen.push(e));
    const client = createClient(StampService, transport);
    await client.createStamp(
      { contentHash: sha256("mine") },
      { headers: { authorization: `Bearer ${key}` } },
    );
    stop();
    expect(seen[0]?.scope.accountId).toBe(accountId);
  });

  it("maps a bad key to UNAUTHENTICATED and a domain refusal to INVALID_ARGUMENT", async () => {
    const client = createClient(StampService, transport);
    const bad = await client
      .createStamp({ contentHash: sha256("x") }, { headers: { "x-api-key": "svc_live_nope" } })
      .catch(ConnectError.from);
    expect(bad).toMatchObject({ code: Code.Unauthenticated, rawMessage: "API key is not valid" });
    const refused = await client
      .createStamp({ contentHash: sha256("x"), metadata: { "": "empty key" } })
      .catch(ConnectError.from);
    expect(refused).toMatchObject({ code: Code.InvalidArgument });
  });
});

/** Lets every pending read and stamp of the handler run (no timing: the event loop drains). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}
