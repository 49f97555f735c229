// The connection's ordering rules in isolation, with a recording socket: a stamp reply stands in
// for its own stamp_created event whether the event comes before the reply (in-process bus) or
// after it (a bus across processes).
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { loadConfig } from "../../server/config.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { createLogger } from "../../server/logger.js";
import { WsConnection } from "../../server/ws/connection.js";
import { ids, stampEvents } from "./events.js";

class RecordingSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  isPaused = false;
  readonly sent: string[] = [];
  send(frame: string | Buffer): void {
    this.sent.push(frame.toString());
  }
}

function connection() {
  const socket = new RecordingSocket();
  const logger = createLogger(loadConfig({ LOG_LEVEL: "silent" }));
  const conn = new WsConnection(
    socket as unknown as WebSocket,
    { accountId: null, keyId: null, tier: "anonymous", clientKey: "ip:127.0.0.1" },
    { maxBufferedBytes: 1 << 20, logger, traffic: { messagesIn: 0, messagesOut: 0 }, onSent: () => {} },
  );
  conn.subscriptions.set("all_stamps", { channel: "all_stamps", indexKey: "all_stamps" });
  return { socket, conn };
}

const [created, confirmed] = stampEvents(ids.stampA, null) as [AnyDomainEvent, AnyDomainEvent];
const [otherCreated] = stampEvents(ids.stampB, null) as [AnyDomainEvent];

describe("a stamp reply and its own event", () => {
  it("replaces the event in place when it arrives while the request runs", async () => {
    const { socket, conn } = connection();
    let finish: () => void = () => {};
    const running = new Promise<void>((resolve) => {
      finish = resolve;
    });
    conn.enqueue(async () => {
      await running;
      return { frame: "reply", echoOf: ids.stampA };
    });
    await Promise.resolve();
    conn.deliver(otherCreated, "other");
    conn.deliver(created, "own event");
    conn.deliver(confirmed, "confirmed");
    expect(socket.sent).toEqual([]);
    finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.sent).toEqual(["other", "reply", "confirmed"]);
  });

  it("skips the event once when it arrives after the reply", async () => {
    const { socket, conn } = connection();
    conn.enqueue(async () => ({ frame: "reply", echoOf: ids.stampA }));
    await new Promise((resolve) => setImmediate(resolve));
    conn.deliver(created, "own event");
    conn.deliver(confirmed, "confirmed");
    conn.deliver(created, "the same event again");
    expect(socket.sent).toEqual(["reply", "confirmed", "the same event again"]);
  });
});
