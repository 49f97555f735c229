// The servers of bench/ws-fanout.bench.ts, each in a process of its own (run with --expose-gc and
// an IPC channel): `stampd` (the real service, publishing through its event bus to its WebSocket
// subscribers) or `bare` (a `ws` server broadcasting with a plain loop over its clients). Prints
// `ready {"http":<port>}`; then answers IPC commands:
//   publish i    -> sends one stamp_created event; answers {start, sent} (epoch ms, high resolution):
//                   when it began and when every socket had been handed the event
//   memory       -> after a full GC: {heap: heap used + external bytes}
//   connections  -> open WebSocket connections
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { WebSocketServer } from "ws";
import type { DomainEvent } from "../../server/events/bus.js";
import { announceReady } from "./processes.js";
import { startStampd } from "./stampd.js";

type Command = { cmd: "publish"; i: number } | { cmd: "memory" } | { cmd: "connections" };

interface Target {
  port: number;
  broadcast(event: DomainEvent<"stamp_created">): void;
  connections(): number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with --expose-gc");
const target = process.argv[2] === "bare" ? await bare() : await stampd();
const now = () => performance.timeOrigin + performance.now();

process.on("message", (command: Command) => {
  if (command.cmd === "publish") {
    const start = now();
    target.broadcast(stampCreated(command.i));
    process.send!({ start, sent: now() });
  } else if (command.cmd === "memory") {
    gc();
    const m = process.memoryUsage();
    process.send!({ heap: m.heapUsed + m.external });
  } else process.send!(target.connections());
});
announceReady({ http: target.port });

async function stampd(): Promise<Target> {
  const { service, ports } = await startStampd();
  return {
    port: ports.http,
    broadcast: (event) => service.ctx.events.publish(event),
    connections: () => service.ws.stats().connections,
  };
}

async function bare(): Promise<Target> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => wss.once("listening", resolve));
  process.on("SIGTERM", () => process.exit(0));
  return {
    port: (wss.address() as AddressInfo).port,
    broadcast: (e) => {
      const payload = JSON.stringify({ type: e.type, timestamp: new Date().toISOString(), data: e.data });
      for (const client of wss.clients) client.send(payload);
    },
    connections: () => wss.clients.size,
  };
}

function stampCreated(i: number): DomainEvent<"stamp_created"> {
  const id = `stp_01JD3M6ZK8Q2V7W9X4Y5Z${String(i).padStart(5, "0")}`;
  return {
    type: "stamp_created",
    data: {
      id,
      contentHash: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
      timestamp: new Date().toISOString(),
      metadata: { filename: "report.pdf" },
    },
    scope: { accountId: null, stampId: id },
  };
}
