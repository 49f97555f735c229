// Child process of bench/ws-fanout.bench.ts: holds many WebSocket clients so the server under test
// has a process (and a core) of its own. Commands and answers travel over the IPC channel.
import { performance } from "node:perf_hooks";
import WebSocket from "ws";

interface Connect {
  cmd: "connect";
  url: string;
  count: number;
  /** Subscribe each client to all_stamps (stampd); the bare server needs no subscription. */
  subscribe: boolean;
}

const sockets: WebSocket[] = [];
let received = 0;
let expected = 0;

process.on("message", async (message: Connect | { cmd: "close" }) => {
  if (message.cmd === "close") {
    for (const s of sockets) s.terminate();
    process.exit(0);
  }
  expected = message.count;
  // In batches, so the server's accept backlog is never overrun.
  for (let opened = 0; opened < message.count; opened += 250) {
    const batch = Math.min(250, message.count - opened);
    await Promise.all(Array.from({ length: batch }, () => open(message.url, message.subscribe)));
  }
  process.send!({ ready: sockets.length });
});

async function open(url: string, subscribe: boolean): Promise<void> {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  if (subscribe) {
    socket.send(JSON.stringify({ type: "subscribe", data: { channel: "all_stamps" } }));
    await new Promise((resolve) => socket.once("message", resolve));
  }
  socket.on("message", onEvent);
  sockets.push(socket);
}

/** Reports when the last client has received the round's event: that is the fan-out's end. */
function onEvent(): void {
  if (++received < expected) return;
  received = 0;
  process.send!({ at: performance.timeOrigin + performance.now() });
}
