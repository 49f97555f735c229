// What the live pages (dashboard, explorer) share: following public channels, the connection line
// and a throttle for the fetches that events trigger.

import type { ServerMessageOf, ServerMessageType, SubscriptionChannel } from "../gen/asyncapi/index.js";
import { StampdSocket } from "../sdk/src/ws/client.js";

const STOPPED = "Not connected: live updates stopped. Reload the page to try again.";

/** What a page follows and how it says it is live. */
export interface Following<T extends ServerMessageType> {
  url: string;
  channels: SubscriptionChannel[];
  events: readonly T[];
  /** The connection line while updates arrive. */
  live: string;
  onEvent(event: ServerMessageOf<T>): void;
  /** Missed events are not replayed after a reconnection: the page fetches what it shows again. */
  onReconnected(): void;
}

/**
 * Subscribes to `channels` and hands every event of `events` to `onEvent`. A ping, queued until a
 * lost connection is back, tells when to call `onReconnected`.
 */
export function follow<T extends ServerMessageType>(f: Following<T>): void {
  setConnection("Connecting…", false);
  const socket = new StampdSocket({
    url: f.url,
    onReconnecting: () => {
      setConnection("Reconnecting…", false);
      socket.ping().then(
        () => {
          setConnection(f.live, true);
          f.onReconnected();
        },
        () => {},
      );
    },
  });
  for (const type of f.events) void listen(socket, type, f.onEvent);
  Promise.all(f.channels.map((channel) => socket.subscribe(channel))).then(
    () => setConnection(f.live, true),
    () => setConnection(STOPPED, false),
  );
}

async function listen<T extends ServerMessageType>(
  socket: StampdSocket,
  type: T,
  onEvent: (event: ServerMessageOf<T>) => void,
): Promise<void> {
  try {
    for await (const event of socket.events(type)) onEvent(event);
  } catch {
    setConnection(STOPPED, false);
  }
}

/** The connection's state, in words (the colour only repeats it). */
export function setConnection(text: string, live: boolean): void {
  const el = document.getElementById("connection")!;
  el.textContent = text;
  el.classList.toggle("live", live);
}

/** `fn` at most once per `ms`, `ms` after the first call of a burst. */
export function throttled(fn: () => unknown, ms: number): () => void {
  let scheduled = false;
  return () => {
    if (scheduled) return;
    scheduled = true;
    setTimeout(() => {
      scheduled = false;
      fn();
    }, ms);
  };
}

/** A JSON body, or undefined when it cannot be had now (a 429, an outage): the page keeps what it shows. */
export async function fetchJson<T>(url: string): Promise<T | undefined> {
  try {
    const res = await fetch(url, { headers: { accept: "application/json" } });
    return res.ok ? ((await res.json()) as T) : undefined;
  } catch {
    return undefined;
  }
}
