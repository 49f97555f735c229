// stamps.waitFor() against a real service: over the WebSocket `stamp` channel, by polling when no
// socket can be had (none in the runtime, or an endpoint that refuses), and its typed endings.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import {
  APIUserAbortError,
  createClient,
  type StampdClient,
  StampUnreachableStateError,
  StampWaitTimeoutError,
} from "../../sdk/src/index.js";
import { type RunningService, startService } from "../helpers/service.js";

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

const HOUR = 3_600_000;
/** How long vi.waitFor may look for a server-side change on a busy machine. */
const SETTLE = { timeout: 20_000 };
let seq = 0;

function client(extra: Partial<Parameters<typeof createClient>[0]> = {}): StampdClient {
  return createClient({ baseUrl: svc.baseUrl, ...extra });
}

async function pendingStamp(anchors?: string): Promise<string> {
  const file = new Blob([`document ${++seq} ${Date.now()}`]);
  const stamp = await client().stamps.create({ file, ...(anchors === undefined ? {} : { anchors }) });
  expect(stamp.status).toBe("pending");
  return stamp.stamp_id;
}

const stampSubscriptions = () => (svc.service.ws.stats().subscriptions as Record<string, number>).stamp ?? 0;

describe("stamps.waitFor", () => {
  it("resolves on the stamp's WebSocket event once the batch is sealed (no polling)", async () => {
    const id = await pendingStamp("log");
    const before = stampSubscriptions();
    // A poll interval of an hour: only the socket's event can end this wait in time.
    const waiting = client({ WebSocket }).stamps.waitFor(id, { until: "anchored", pollInterval: HOUR });
    await vi.waitFor(() => expect(stampSubscriptions()).toBe(before + 1), SETTLE);
    await svc.service.proofs.pipeline.tick();
    const stamp = await waiting;
    expect(stamp).toMatchObject({ stamp_id: id, status: "anchored" });
    // The socket is closed once the wait is over.
    await vi.waitFor(() => expect(stampSubscriptions()).toBe(before), SETTLE);
  });

  it("given the stamp just created, reads it once: on its event (issue #36, each read is charged)", async () => {
    const reads: string[] = [];
    const counting: typeof fetch = (input, init) => {
      const request = new Request(input, init);
      if (request.method === "GET") reads.push(new URL(request.url).pathname);
      return fetch(request);
    };
    const stampd = client({ WebSocket, fetch: counting });
    const created = await stampd.stamps.create({ file: new Blob([`read once ${Date.now()}`]) });
    const before = stampSubscriptions();
    const waiting = stampd.stamps.waitFor(created.stamp_id, { stamp: created, pollInterval: HOUR });
    await vi.waitFor(() => expect(stampSubscriptions()).toBe(before + 1), SETTLE);
    await svc.service.proofs.pipeline.tick();
    expect(await waiting).toMatchObject({ stamp_id: created.stamp_id, status: "confirmed" });
    expect(reads).toEqual([`/stamps/${created.stamp_id}`]);
  });

  it("resolves at once with a stamp already in the state, without a socket", async () => {
    const id = await pendingStamp("log");
    await svc.service.proofs.pipeline.tick();
    const received = svc.service.ws.stats().messages_in;
    const stamp = await client({ WebSocket }).stamps.waitFor(id, { pollInterval: HOUR });
    expect(stamp.status).toBe("anchored");
    // No subscribe frame reached the server.
    expect(svc.service.ws.stats().messages_in).toBe(received);
  });

  it("polls GET /stamps/{id} when the runtime has no WebSocket class", async () => {
    expect((globalThis as { WebSocket?: unknown }).WebSocket).toBeUndefined(); // Node 20
    const id = await pendingStamp();
    const waiting = client().stamps.waitFor(id, { until: "confirmed", pollInterval: 20 });
    await svc.service.proofs.pipeline.tick();
    expect(await waiting).toMatchObject({ stamp_id: id, status: "confirmed" });
  });

  it("polls when the WebSocket endpoint refuses (not a stampd endpoint)", async () => {
    const id = await pendingStamp();
    const wsUrl = `${svc.baseUrl.replace("http", "ws")}/not-the-endpoint`;
    const waiting = client({ WebSocket, wsUrl }).stamps.waitFor(id, { pollInterval: 20 });
    await svc.service.proofs.pipeline.tick();
    expect((await waiting).status).toBe("confirmed");
  });

  it("rejects with StampWaitTimeoutError carrying the stamp as last read", async () => {
    const id = await pendingStamp();
    const err = await client({ WebSocket })
      .stamps.waitFor(id, { timeout: 300 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StampWaitTimeoutError);
    expect((err as StampWaitTimeoutError).stamp?.status).toBe("pending");
  });

  it("rejects with APIUserAbortError when the caller aborts", async () => {
    const id = await pendingStamp();
    const abort = new AbortController();
    const waiting = client().stamps.waitFor(id, { signal: abort.signal, pollInterval: 20 });
    abort.abort();
    await expect(waiting).rejects.toBeInstanceOf(APIUserAbortError);
  });

  it("rejects with StampUnreachableStateError waiting for anchored on a stamp with no anchor", async () => {
    const id = await pendingStamp();
    await svc.service.proofs.pipeline.tick();
    const err = await client()
      .stamps.waitFor(id, { until: "anchored" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StampUnreachableStateError);
    expect((err as StampUnreachableStateError).stamp.status).toBe("confirmed");
  });
});
