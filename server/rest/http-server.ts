import http from "node:http";
import type { Config } from "../config.js";
import { type ConnectionCapSettings, capConnectionsPerClient } from "../ratelimit/connection-cap.js";

export type HttpLimits = Pick<
  Config,
  | "MAX_HEADER_BYTES"
  | "MAX_CONNECTIONS"
  | "HTTP_HEADERS_TIMEOUT_MS"
  | "HTTP_REQUEST_TIMEOUT_MS"
  | "HTTP_IDLE_TIMEOUT_MS"
  | "HTTP_KEEP_ALIVE_TIMEOUT_MS"
> &
  ConnectionCapSettings;

/**
 * The REST and WebSocket listener with its connection limits (docs/design.md "Limits"): a client
 * that sends its headers too slowly gets 408 and is disconnected (slowloris), as is one whose
 * whole request takes too long or whose connection stays silent mid-request (a stalled upload);
 * headers above MAX_HEADER_BYTES get 431; connections beyond MAX_CONNECTIONS, or beyond
 * MAX_CONNECTIONS_PER_CLIENT from one client address, are dropped on accept.
 * Upgraded WebSocket sockets leave these timers behind (ws clears the socket's idle timeout) and
 * are kept alive by their own ping frames.
 */
export function createHttpServer(limits: HttpLimits, app: http.RequestListener): http.Server {
  const server = http.createServer(
    {
      maxHeaderSize: limits.MAX_HEADER_BYTES,
      headersTimeout: limits.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: limits.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: limits.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      // Node checks the two timeouts above on this interval (30 s by default, whatever they are):
      // checking four times per headers timeout cuts a slow client within 1.25 times that timeout.
      connectionsCheckingInterval: Math.ceil(limits.HTTP_HEADERS_TIMEOUT_MS / 4),
    },
    app,
  );
  server.timeout = limits.HTTP_IDLE_TIMEOUT_MS;
  server.maxConnections = limits.MAX_CONNECTIONS;
  capConnectionsPerClient(server, limits);
  return server;
}
