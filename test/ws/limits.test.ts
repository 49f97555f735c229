// Per-connection limits, flow control, keep-alive and shutdown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { type RunningService, startService } from "../helpers/service.js";
import { ids, publish } from "./events.js";
import { TestClient } from "./ws-client.js";

describe("limits", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({
      RATE_LIMIT_ENABLED: "false",
      WS_MAX_SUBSCRIPTIONS: "2",
      WS_MAX_BUFFERED_BYTES: String(64 * 1024),
    });
  });
  afterAll(async () => {
    await svc.close();
  });

  it("refuses a subscription beyond WS_MAX_SUBSCRIPTIONS, but not a repeated one", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    await c.subscribe("all_stamps");
    await c.subscribe("vault", { vault_id: ids.vaultA });
    const third = await c.request({
      type: "subscribe",
      data: { channel: "vault", filters: { vault_id: ids.vaultB } },
    });
    expect(third).toMatchObject({ type: "error", data: { code: "too_many_subscriptions" } });
    await c.subscribe("all_stamps");
    await c.expectReply("unsubscribed", { type: "unsubscribe", data: { channel: "all_stamps" } });
    await c.subscribe("vault", { vault_id: ids.vaultB });
    c.close();
  });

  it("closes a consumer that stops reading with 1013, and keeps serving the others", async () => {
    const slow = await TestClient.connect(svc.baseUrl);
    const healthy = await TestClient.connect(svc.baseUrl);
    await slow.subscribe("all_stamps");
    await healthy.subscribe("batch", { batch_id: ids.batch });
    slow.socket.pause();
    // 16 KiB events until the kernel's socket buffers are full and the server's own buffer passes 64 KiB.
    const big = { pad: "x".repeat(16 * 1024) };
    for (let i = 0; i < 2000; i++) {
      publish(svc.service.ctx.events, [bigStamp(i, big)]);
    }
    slow.socket.resume();
    expect((await slow.closed).code).toBe(1013);
    expect(await healthy.drain()).toEqual([]);
    expect(svc.service.ws.stats().connections).toBe(1);
    healthy.close();
  });
});

function bigStamp(i: number, metadata: Record<string, string>): AnyDomainEvent {
  const id = `stp_01JD3M6ZK8Q2V7W9X4Y5Z${String(i).padStart(5, "0")}`;
  return {
    type: "stamp_created",
    data: { id, contentHash: `sha256:${"ab".repeat(32)}`, timestamp: "2026-01-01T00:00:00.000Z", metadata },
    scope: { stampId: id, accountId: null },
  };
}

describe("keep-alive", () => {
  let svc: RunningService;
  beforeAll(async () => {
    svc = await startService({ RATE_LIMIT_ENABLED: "false", WS_PING_INTERVAL_MS: "50" });
  });
  afterAll(async () => {
    await svc.close();
  });

  it("drops a connection that does not answer ping frames, and keeps one that does", async () => {
    const deaf = await TestClient.connect(svc.baseUrl, { autoPong: false });
    const live = await TestClient.connect(svc.baseUrl);
    let pings = 0;
    live.socket.on("ping", () => pings++);
    expect((await deaf.closed).code).toBe(1006);
    await new Promise<void>((resolve) => live.socket.on("ping", () => pings >= 3 && resolve()));
    expect((await live.expectReply("pong", { type: "ping" })).type).toBe("pong");
    live.close();
  });
});

describe("shutdown", () => {
  it("closes open connections with 1001 and lets the listener close", async () => {
    const svc = await startService({ RATE_LIMIT_ENABLED: "false" });
    const a = await TestClient.connect(svc.baseUrl);
    const b = await TestClient.connect(svc.baseUrl);
    await a.subscribe("all_stamps");
    const closing = svc.close();
    expect((await a.closed).code).toBe(1001);
    expect((await b.closed).code).toBe(1001);
    await closing;
  });
});
