// The SDK's typed WebSocket client against a real service: subscriptions as async iterables,
// request/response helpers, the bounded queue, and reconnection with re-subscription.
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { createClient } from "../../sdk/src/client.js";
import { type ReconnectInfo, StampdSocket } from "../../sdk/src/ws/client.js";
import { WsConnectionError, WsQueueFullError, WsRequestError } from "../../sdk/src/ws/errors.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { ids, label, publish, vaultEvents } from "./events.js";
import { wsUrl } from "./ws-client.js";

const running: RunningService[] = [];
const clients: StampdSocket[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function start(env: Record<string, string> = {}): Promise<RunningService> {
  const svc = await startService({ RATE_LIMIT_ENABLED: "false", ...env });
  running.push(svc);
  return svc;
}

function connect(svc: RunningService, options: Partial<ConstructorParameters<typeof StampdSocket>[0]> = {}) {
  const client = new StampdSocket({ url: wsUrl(svc.baseUrl), WebSocket, ...options });
  clients.push(client);
  return client;
}

describe("the SDK WebSocket client", () => {
  it("delivers a channel's events as a typed async iterable", async () => {
    const svc = await start();
    const client = connect(svc);
    expect(await client.subscribe("vault", { vault_id: ids.vaultA })).toEqual({
      channel: "vault",
      filters: { vault_id: ids.vaultA },
    });
    const heartbeats = client.events("vault_heartbeat");
    publish(svc.service.ctx.events, vaultEvents(ids.vaultA, "acct"));
    const first = await heartbeats.next();
    expect(first.done).toBe(false);
    expect(first.value?.data.heartbeatCount).toBe(1);
    await heartbeats.return?.();
  });

  it("ends for-await loops when the client closes", async () => {
    const svc = await start();
    const client = connect(svc);
    await client.subscribe("all_vaults");
    const seen: string[] = [];
    const loop = (async () => {
      for await (const event of client.events("vault_created")) {
        seen.push(event.data.vaultId);
        client.close();
      }
    })();
    publish(svc.service.ctx.events, vaultEvents(ids.vaultB, "acct").slice(0, 1));
    await loop;
    expect(seen).toEqual([ids.vaultB]);
    expect(await client.closed).toEqual({ code: 1000, reason: "client closed" });
  });

  it("sends the API key in a header by default on Node, in the query when asked", async () => {
    const svc = await start();
    const { key, accountId } = await issueKey(svc);
    // What reached the server's upgrade: the URL a proxy would log, and the Authorization header.
    const upgrades: { url: string | undefined; authorization: string | undefined }[] = [];
    svc.service.http.prependListener("upgrade", (req: IncomingMessage) =>
      upgrades.push({ url: req.url, authorization: req.headers.authorization }),
    );
    for (const sendKeyAs of [undefined, "query", "header"] as const) {
      const client = connect(svc, { apiKey: key, sendKeyAs });
      await client.subscribe("user_vaults");
      const events = client.events("vault_released");
      publish(svc.service.ctx.events, vaultEvents(ids.vaultA, accountId));
      expect((await events.next()).value?.data.vaultId).toBe(ids.vaultA);
      client.close();
    }
    const bearer = `Bearer ${key}`;
    expect(upgrades).toEqual([
      { url: "/ws", authorization: bearer },
      { url: `/ws?api_key=${key}`, authorization: undefined },
      { url: "/ws", authorization: bearer },
    ]);
  });

  it("keeps the key out of the URL of the client's own sockets (client.ws, stamps.waitFor)", async () => {
    const svc = await start();
    const { key } = await issueKey(svc);
    const urls: (string | undefined)[] = [];
    svc.service.http.prependListener("upgrade", (req: IncomingMessage) => urls.push(req.url));
    const stampd = createClient({ baseUrl: svc.baseUrl, apiKey: key, WebSocket });
    const socket = stampd.ws({ subscribeTimeoutMs: undefined });
    clients.push(socket);
    await socket.subscribe("user_stamps");
    const stamp = await stampd.stamps.create({ file: new TextEncoder().encode("no key in URLs") });
    // An hour between polls: only the socket's event can end the wait in time.
    const waiting = stampd.stamps.waitFor(stamp.stamp_id, { stamp, pollInterval: 3_600_000 });
    const stampSubscriptions = () => (svc.service.ws.stats().subscriptions as Record<string, number>).stamp;
    await vi.waitFor(() => expect(stampSubscriptions()).toBe(1));
    await svc.service.proofs.pipeline.tick();
    expect((await waiting).status).toBe("confirmed");
    expect(urls).toEqual(["/ws", "/ws"]);
  });

  it("rejects a refused subscription with the server's error code", async () => {
    const svc = await start();
    const client = connect(svc);
    const refused = client.subscribe("user_stamps");
    await expect(refused).rejects.toBeInstanceOf(WsRequestError);
    await expect(refused).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("creates and verifies stamps through promise helpers matched by id", async () => {
    const svc = await start();
    const client = connect(svc);
    const contentHash = `sha256:${"cd".repeat(32)}`;
    const [created, other] = await Promise.all([
      client.stamp({ contentHash, metadata: { n: "1" } }),
      client.stamp({ contentHash: `sha256:${"ef".repeat(32)}` }),
    ]);
    expect(created).toMatchObject({ contentHash, metadata: { n: "1" } });
    expect(other.id).not.toBe(created.id);
    const result = await client.verify({ stampId: created.id, contentHash });
    expect(result).toEqual({
      stampId: created.id,
      contentHash,
      verified: true,
      timestamp: created.timestamp,
    });
    const missing = client.verify({ stampId: ids.stampA, contentHash });
    await expect(missing).rejects.toMatchObject({ name: "WsRequestError", code: "not_found" });
  });

  it("answers ping with the echoed data", async () => {
    const svc = await start();
    const client = connect(svc);
    expect(await client.ping({ n: 1 })).toEqual({ n: 1 });
  });

  it("reconnects after the server restarts on the same port and subscribes again", async () => {
    const first = await start();
    const { port } = first.service.http.address() as AddressInfo;
    let reconnecting: (info: ReconnectInfo) => void = () => {};
    const lost = new Promise<ReconnectInfo>((resolve) => {
      reconnecting = resolve;
    });
    const client = connect(first, { onReconnecting: (info) => reconnecting(info) });
    await client.subscribe("all_vaults");
    await client.subscribe("vault", { vault_id: ids.vaultB });
    const events = client.events("vault_heartbeat");

    await first.close();
    running.splice(running.indexOf(first), 1);
    const info = await lost;
    expect(info).toMatchObject({ attempt: 1, code: 1001 });
    expect(info.delayMs).toBeGreaterThanOrEqual(375);
    expect(info.delayMs).toBeLessThanOrEqual(500);

    const second = await start({ PORT: String(port) });
    // A ping waits in the queue until the connection is back; its pong follows the re-subscriptions.
    expect(await client.ping()).toEqual({});
    expect(second.service.ws.stats().subscriptions).toMatchObject({ all_vaults: 1, vault: 1 });
    publish(second.service.ctx.events, vaultEvents(ids.vaultB, "acct"));
    const event = await events.next();
    expect(event.value && label(event.value)).toBe(`vault_heartbeat:${ids.vaultB}`);
  });

  it("backs off 0.5 s doubling to 8 s, with up to 25 % jitter, while the server stays away", async () => {
    const svc = await start();
    const url = wsUrl(svc.baseUrl);
    await svc.close();
    running.length = 0;
    // Only the reconnect timer is faked: each attempt really fails (connection refused), then the
    // test moves the clock past the delay the client chose instead of waiting for it.
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const delays: number[] = [];
      const done = new Promise<void>((resolve) => {
        const client = new StampdSocket({
          url,
          WebSocket,
          onReconnecting: ({ delayMs, code }) => {
            expect(code).toBe(1006);
            delays.push(delayMs);
            if (delays.length === 7) {
              client.close();
              resolve();
            } else {
              setImmediate(() => vi.advanceTimersByTime(delayMs));
            }
          },
        });
      });
      await done;
      const ceilings = [500, 1000, 2000, 4000, 8000, 8000, 8000];
      expect(delays.map((d, i) => d <= ceilings[i]! && d >= ceilings[i]! * 0.75)).toEqual(
        ceilings.map(() => true),
      );
    } finally {
      vi.useRealTimers();
    }
  });

  it("queues requests while disconnected, up to maxQueue", async () => {
    const svc = await start();
    const client = connect(svc, { maxQueue: 2 });
    // Not yet open: these wait in the queue and go out once connected.
    const a = client.ping({ a: 1 });
    const b = client.ping({ b: 2 });
    await expect(client.ping({ c: 3 })).rejects.toBeInstanceOf(WsQueueFullError);
    expect(await Promise.all([a, b])).toEqual([{ a: 1 }, { b: 2 }]);
  });
});

describe("the SDK WebSocket client on a close it cannot recover from", () => {
  it("stops, rejects what was pending and does not reconnect", async () => {
    const svc = await start({ WS_MAX_PAYLOAD: "1024" });
    const reconnects: ReconnectInfo[] = [];
    const client = connect(svc, { onReconnecting: (info) => reconnects.push(info) });
    await client.ping();
    const tooBig = client.ping({ pad: "x".repeat(2048) });
    await expect(tooBig).rejects.toBeInstanceOf(WsConnectionError);
    expect(await client.closed).toMatchObject({ code: 1009 });
    await expect(client.ping()).rejects.toBeInstanceOf(WsConnectionError);
    expect(reconnects).toEqual([]);
  });
});
