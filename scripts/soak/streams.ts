import { once } from "node:events";
import type { Client } from "@connectrpc/connect";
import WebSocket from "ws";
import type { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";

/** Counts of what the long-lived streams delivered. */
export interface StreamCounts {
  wsEvents: number;
  wsConnections: number;
  watchMessages: number;
  watchCalls: number;
}

async function openSocket(url: string, key: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } });
  await once(socket, "open");
  return socket;
}

/** A WebSocket subscribed to every stamp event, counting what arrives. */
export async function openSubscriber(url: string, key: string, counts: StreamCounts): Promise<WebSocket> {
  const socket = await openSocket(url, key);
  counts.wsConnections++;
  const subscribed = once(socket, "message");
  socket.send(JSON.stringify({ type: "subscribe", id: "all", data: { channel: "all_stamps" } }));
  await subscribed;
  socket.on("message", () => counts.wsEvents++);
  return socket;
}

/** A WebSocket that answers `ping()` with the round trip of an application-level ping. */
export async function openPinger(url: string, key: string) {
  const socket = await openSocket(url, key);
  const waiting = new Map<string, () => void>();
  socket.on("message", (raw) => {
    const message = JSON.parse(raw.toString()) as { type: string; id?: string };
    if (message.type === "pong" && message.id) waiting.get(message.id)?.();
  });
  let counter = 0;
  return {
    socket,
    ping(): Promise<void> {
      const id = `p${++counter}`;
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("no pong within 30 s")), 30_000);
        waiting.set(id, () => {
          clearTimeout(timer);
          waiting.delete(id);
          resolve();
        });
        socket.send(JSON.stringify({ type: "ping", id, data: { sentAt: Date.now() } }));
      });
    },
  };
}

/** Reads a WatchStamps stream of every stamp until `signal` aborts it. */
export async function watchAll(
  client: Client<typeof StampService>,
  headers: Record<string, string>,
  signal: AbortSignal,
  counts: StreamCounts,
): Promise<void> {
  counts.watchCalls++;
  try {
    for await (const _ of client.watchStamps({ filter: "" }, { headers, signal })) counts.watchMessages++;
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}
