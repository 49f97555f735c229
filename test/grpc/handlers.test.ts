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
import { stampServices } from "../../server/stamps/services.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { testServiceKeys } from "../helpers/service-keys.js";
import { sha256 } from "./fixture.js";

const config = loadConfig({ LOG_LEVEL: "silent" });
const store = new SqliteStore(":memory:");
const clock = new ManualClock("2026-03-04T05:06:07.089Z");
const events = new MemoryEventBus();
const { stamps } = stampServices({ config, store, keys: testServiceKeys(), clock, events });
const handlers = new StampHandlers({
  stamps,
  events,
  limits: new CallLimits(undefined),
  readiness: new Readiness(),
  maxBatchItems: 1000,
  watchBuffer: 100,
});

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
  it("StreamStamps reads the next request only after the previous answer was taken", async () => {
    const log: string[] = [];
    async function* requests(): AsyncGenerator<StreamStampRequest> {
      for (let i = 1; i <= 3; i++) {
        log.push(`read ${i}`);
        yield create(StreamStampRequestSchema, { contentHash: sha256(String(i)) });
      }
    }
    const answers = handlers.streamStamps(requests(), handlerContext("streamStamps"));
    for (let i = 1; i <= 3; i++) {
      const { value } = await answers.next();
      log.push(`answer ${value?.sequence}`);
    }
    expect((await answers.next()).done).toBe(true);
    expect(log).toEqual(["read 1", "answer 1", "read 2", "answer 2", "read 3", "answer 3"]);
  });

  it("BatchStamp reports progress once its items are stored, refused ones included", async () => {
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
    expect(progress).toEqual([
      { batchId: expect.stringMatching(/^bat_/), processed: 250, total: 250, percentage: 100 },
    ]);
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
