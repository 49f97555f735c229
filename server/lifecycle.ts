import type { Server } from "node:http";
import type { Http2Server } from "node:http2";
import type { Service } from "./build.js";

export function listen(server: Server | Http2Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Stops accepting connections on every listener, lets in-flight requests finish for up to
 * `graceMs`, then closes what is left and the service's resources.
 */
export async function shutdownGracefully(service: Service, graceMs: number): Promise<void> {
  // WebSocket connections first: http.Server.close() waits for upgraded sockets, which it never closes.
  await Promise.all([
    service.ws.close(graceMs),
    closeHttp(service.http, graceMs),
    service.grpc.shutdown(graceMs),
  ]);
  await service.close();
}

async function closeHttp(server: Server, graceMs: number): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}
