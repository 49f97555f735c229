import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import type { AppContext } from "../context.js";
import type { WsStatsSource } from "../http/ws-stats.js";
import type { Metrics } from "../metrics/metrics.js";
import type { StampService } from "../stamps/stamp-service.js";
import { WsConnection } from "./connection.js";
import { Fanout } from "./fanout.js";
import { frameType } from "./frames.js";
import { createRequestHandler, type RequestHandler } from "./requests.js";
import { StampRequests } from "./stamp-requests.js";
import { SubscriptionIndex } from "./subscription-index.js";
import { Subscriptions } from "./subscriptions.js";
import { type Admission, admit, refuse, UpgradeRefusal } from "./upgrade.js";

/** The WebSocket endpoint `/ws` of specs/asyncapi.yaml, on the REST server's port. */
export interface WsServer extends WsStatsSource {
  /** The http.Server's `upgrade` listener. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /**
   * Refuses new connections and closes open ones with 1001 (going away); resolves when they are
   * gone, terminating those that have not finished the closing handshake after `graceMs`.
   */
  close(graceMs: number): Promise<void>;
}

export function createWsServer(ctx: AppContext, stamps: StampService): WsServer {
  const { config, logger } = ctx;
  // noServer: the http.Server's upgrade event is routed here after admission (auth, origin).
  const wss = new WebSocketServer({ noServer: true, maxPayload: config.WS_MAX_PAYLOAD });
  const admitted = new WeakMap<IncomingMessage, Admission>();
  wss.on("headers", (headers, req) => headers.push(...(admitted.get(req)?.headers ?? [])));
  const connections = new Set<WsConnection>();
  const traffic = { messagesIn: 0, messagesOut: 0 };
  const index = new SubscriptionIndex<WsConnection>();
  const subscriptions = new Subscriptions(index, config.WS_MAX_SUBSCRIPTIONS);
  const fanout = new Fanout(index, ctx.clock);
  const handle = createRequestHandler(ctx, subscriptions, new StampRequests(stamps, ctx.rateLimiter));
  // One bus subscription per server; the index does the per-connection routing.
  const unsubscribe = ctx.events.subscribe((event) => fanout.publish(event));
  const stopKeepAlive = startKeepAlive(connections, config.WS_PING_INTERVAL_MS);
  let closing = false;

  function accept(socket: WebSocket, { principal }: Admission): void {
    const conn = new WsConnection(socket, principal, {
      maxBufferedBytes: config.WS_MAX_BUFFERED_BYTES,
      logger,
      traffic,
      onSent: (frame) => ctx.metrics.wsSent.inc({ type: frameType(frame) }),
    });
    connections.add(conn);
    socket.on("message", (data, isBinary) => onFrame(conn, data, isBinary, traffic, ctx.metrics, handle));
    socket.on("error", (err) => logger.debug({ err }, "WebSocket error"));
    socket.on("close", () => {
      connections.delete(conn);
      subscriptions.dropAll(conn);
    });
  }

  return {
    handleUpgrade(req, socket, head) {
      // Until ws owns the socket, a client that goes away must not crash the process.
      const onError = () => socket.destroy();
      socket.on("error", onError);
      const shuttingDown = new UpgradeRefusal(503, { detail: "shutting down" });
      const admission = closing ? Promise.reject(shuttingDown) : admit(req, ctx);
      admission.then(
        (admission) => {
          // Admission is asynchronous: the server may have begun closing meanwhile.
          if (closing) {
            refuse(socket, shuttingDown);
            return;
          }
          socket.off("error", onError);
          admitted.set(req, admission);
          wss.handleUpgrade(req, socket, head, (ws) => accept(ws, admission));
        },
        (err) => {
          if (!(err instanceof UpgradeRefusal)) logger.error({ err }, "WebSocket upgrade failed");
          refuse(
            socket,
            err instanceof UpgradeRefusal ? err : new UpgradeRefusal(500, { detail: "internal error" }),
          );
        },
      );
    },

    stats() {
      return {
        connections: connections.size,
        subscriptions: index.counts(),
        messages_in: traffic.messagesIn,
        messages_out: traffic.messagesOut,
      };
    },

    async close(graceMs) {
      closing = true;
      unsubscribe();
      stopKeepAlive();
      const gone = [...connections].map((conn) => closed(conn.socket));
      for (const conn of connections) conn.socket.close(1001, "server shutting down");
      const timer = setTimeout(() => {
        for (const conn of connections) conn.socket.terminate();
      }, graceMs);
      await Promise.all(gone);
      clearTimeout(timer);
      wss.close();
    },
  };
}

function onFrame(
  conn: WsConnection,
  data: WebSocket.RawData,
  isBinary: boolean,
  traffic: { messagesIn: number },
  metrics: Metrics,
  handle: RequestHandler,
): void {
  traffic.messagesIn++;
  // The protocol is JSON text only (specs/asyncapi.yaml, close codes).
  if (isBinary) {
    metrics.wsReceived.inc({ type: "binary" });
    conn.socket.close(1003, "binary frames are not supported");
    return;
  }
  const text = data.toString();
  conn.enqueue(() => handle(conn, text));
}

function closed(socket: WebSocket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.readyState === socket.CLOSED) resolve();
    else socket.once("close", () => resolve());
  });
}

/**
 * One timer for all connections (not one each): every interval, a connection that has not
 * answered the previous ping frame is dropped and the others are pinged again. Browsers answer
 * ping frames on their own, so this needs nothing from clients.
 */
function startKeepAlive(connections: Iterable<WsConnection>, intervalMs: number): () => void {
  const timer = setInterval(() => {
    for (const conn of connections) conn.checkAlive();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
