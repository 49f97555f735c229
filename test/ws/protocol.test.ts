// Each client message and its reply, and malformed input, over a real socket (specs/asyncapi.yaml).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type RunningService, startService } from "../helpers/service.js";
import { TestClient } from "./ws-client.js";

const STAMP_ID = "stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7B8";

let svc: RunningService;
let client: TestClient;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false", WS_MAX_PAYLOAD: "2048" });
  client = await TestClient.connect(svc.baseUrl);
});
afterAll(async () => {
  await svc.close();
});

describe("WebSocket requests and replies", () => {
  it("answers ping with pong echoing the id and the data, stamped with the send time", async () => {
    const before = Date.now();
    client.send({ type: "ping", id: "p-1", data: { sentAt: 42, nested: { a: [1] } } });
    const pong = await client.next();
    expect(pong).toMatchObject({ type: "pong", id: "p-1", data: { sentAt: 42, nested: { a: [1] } } });
    expect(Date.parse(pong.timestamp)).toBeGreaterThanOrEqual(before - 1000);
  });

  it("answers a ping without data or id with pong {}", async () => {
    client.send({ type: "ping" });
    const pong = await client.next();
    expect(pong).toEqual({ type: "pong", timestamp: expect.any(String), data: {} });
  });

  it("confirms subscribe with the channel and its filters ({} for none)", async () => {
    const all = await client.expectReply("subscribed", {
      type: "subscribe",
      data: { channel: "all_stamps" },
    });
    expect(all.data).toEqual({ channel: "all_stamps", filters: {} });
    const one = await client.expectReply("subscribed", {
      type: "subscribe",
      data: { channel: "stamp", filters: { stamp_id: STAMP_ID } },
    });
    expect(one.data).toEqual({ channel: "stamp", filters: { stamp_id: STAMP_ID } });
  });

  it("treats a repeated subscribe as the same subscription", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    await c.subscribe("all_vaults");
    await c.subscribe("all_vaults");
    const removed = await c.expectReply("unsubscribed", {
      type: "unsubscribe",
      data: { channel: "all_vaults" },
    });
    expect(removed.data).toEqual({ channel: "all_vaults", filters: {}, removed: 1 });
    c.close();
  });

  it("unsubscribes one filtered subscription, or every one of a channel, idempotently", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    const other = "stp_01JD3M6ZK8Q2V7W9X4Y5Z6A7B9";
    await c.subscribe("stamp", { stamp_id: STAMP_ID });
    await c.subscribe("stamp", { stamp_id: other });
    const one = await c.expectReply("unsubscribed", {
      type: "unsubscribe",
      data: { channel: "stamp", filters: { stamp_id: STAMP_ID } },
    });
    expect(one.data).toEqual({ channel: "stamp", filters: { stamp_id: STAMP_ID }, removed: 1 });
    const again = await c.expectReply("unsubscribed", {
      type: "unsubscribe",
      data: { channel: "stamp", filters: { stamp_id: STAMP_ID } },
    });
    expect(again.data.removed).toBe(0);
    await c.subscribe("stamp", { stamp_id: STAMP_ID });
    const all = await c.expectReply("unsubscribed", { type: "unsubscribe", data: { channel: "stamp" } });
    expect(all.data.removed).toBe(2);
    c.close();
  });

  it("replies in request order, each with its own id", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    const ids = ["a", "b", "c", "d", "e"];
    c.send({ type: "ping", id: "a" });
    c.send({ type: "subscribe", id: "b", data: { channel: "all_stamps" } });
    c.send({ type: "nope", id: "c" });
    c.send({ type: "unsubscribe", id: "d", data: { channel: "all_stamps" } });
    c.send({ type: "ping", id: "e" });
    const replies = await Promise.all(ids.map(() => c.next()));
    expect(replies.map((r) => ("id" in r ? r.id : undefined))).toEqual(ids);
    expect(replies.map((r) => r.type)).toEqual(["pong", "subscribed", "error", "unsubscribed", "pong"]);
    c.close();
  });
});

describe("malformed input", () => {
  const errorCases: [string, { given: string | Record<string, unknown>; code: string; id?: string }][] = [
    ["a frame that is not JSON", { given: "{not json", code: "invalid_json" }],
    ["a JSON value that is not an object", { given: "[1,2]", code: "invalid_json" }],
    ["a message without type", { given: { id: "x1", data: {} }, code: "invalid_message", id: "x1" }],
    ["an unknown type", { given: { type: "launch", id: "x2" }, code: "unknown_type", id: "x2" }],
    [
      "a stamp with a malformed hash",
      {
        given: { type: "stamp", id: "x3", data: { contentHash: "md5:abc" } },
        code: "invalid_message",
        id: "x3",
      },
    ],
    [
      "an unknown member",
      { given: { type: "ping", id: "x4", extra: true }, code: "invalid_message", id: "x4" },
    ],
    [
      "an unknown channel",
      {
        given: { type: "subscribe", id: "x5", data: { channel: "everything" } },
        code: "unknown_channel",
        id: "x5",
      },
    ],
    [
      "a filtered channel without its filter",
      {
        given: { type: "subscribe", id: "x6", data: { channel: "vault" } },
        code: "invalid_filter",
        id: "x6",
      },
    ],
    [
      "a filter the channel does not take",
      {
        given: {
          type: "subscribe",
          id: "x7",
          data: { channel: "all_stamps", filters: { stamp_id: STAMP_ID } },
        },
        code: "invalid_filter",
        id: "x7",
      },
    ],
    [
      "a malformed id in a filter",
      {
        given: { type: "subscribe", id: "x8", data: { channel: "stamp", filters: { stamp_id: "stp_1" } } },
        code: "invalid_filter",
        id: "x8",
      },
    ],
    [
      "an unknown filter key",
      {
        given: { type: "subscribe", id: "x9", data: { channel: "stamp", filters: { stamp: STAMP_ID } } },
        code: "invalid_filter",
        id: "x9",
      },
    ],
    [
      "an id that is too long (not echoed)",
      { given: { type: "ping", id: "i".repeat(129) }, code: "invalid_message" },
    ],
  ];

  it.each(errorCases)(
    "answers %s with error and keeps the connection open",
    async (_name, { given, code, id }) => {
      client.send(typeof given === "string" ? given : JSON.stringify(given));
      const reply = await client.next();
      expect(reply).toMatchObject({ type: "error", data: { code, message: expect.any(String) } });
      expect("id" in reply ? reply.id : undefined).toBe(id);
      expect((await client.expectReply("pong", { type: "ping" })).type).toBe("pong");
    },
  );

  it("lists each schema violation with a JSON pointer to it", async () => {
    const reply = await client.request({ type: "verify", data: { stampId: "nope", extra: 1 } });
    expect(reply.type).toBe("error");
    if (reply.type !== "error") return;
    expect(reply.data.code).toBe("invalid_message");
    expect(reply.data.errors?.map((e) => e.path).sort()).toEqual([
      "/data/contentHash",
      "/data/extra",
      "/data/stampId",
    ]);
  });

  it("closes with 1009 on a frame larger than WS_MAX_PAYLOAD", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    c.send({ type: "ping", data: { pad: "x".repeat(4096) } });
    expect((await c.closed).code).toBe(1009);
  });

  it("closes with 1003 on a binary frame", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    c.socket.send(Buffer.from(JSON.stringify({ type: "ping" })), { binary: true });
    expect((await c.closed).code).toBe(1003);
  });

  it("refuses upgrades on other paths with 404", async () => {
    const socket = new WebSocket(`${svc.baseUrl.replace("http", "ws")}/socket`);
    const status = await new Promise<number>((resolve) => {
      socket.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
      socket.once("error", () => {});
    });
    expect(status).toBe(404);
  });
});
