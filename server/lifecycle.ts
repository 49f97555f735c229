import type { Server } from "node:http";
import type { Http2Server } from "node:http2";
import { setTimeout as sleep } from "node:timers/promises";
import type { AssembledService } from "./build.js";

export function listen(server: Server | Http2Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

export interface DrainOptions {
  /** How long the listeners keep accepting after readiness turned `stopping` (`SHUTDOWN_DELAY_MS`). */
  delayMs: number;
  /** Ends the delay early (a second signal: the operator does not want to wait). */
  skip?: AbortSignal;
}

/**
 * Turns readiness to `stopping` (GET /ready answers 503, gRPC health NOT_SERVING) at once, keeps
 * serving for `drain.delayMs` so load balancers stop routing here, then stops accepting
 * connections on every listener, lets in-flight requests finish for up to `graceMs`, and closes
 * what is left and the service's resources.
 */
export async function shutdownGracefully(
  service: AssembledService,
  graceMs: number,
  drain: DrainOptions = { delayMs: 0 },
): Promise<void> {
  service.readiness.set("stopping");
  // Rejects when skipped, which only ends the wait.
  await sleep(drain.delayMs, undefined, { signal: drain.skip }).catch(() => {});
  // WebSocket connections first: http.Server.close() waits for upgraded sockets, which it never closes.
  await Promise.all([
    service.ws.close(graceMs),
    closeHttp(service.http, graceMs),
    service.grpc.shutdown(graceMs),
    ...(service.metricsServer ? [closeHttp(service.metricsServer, graceMs)] : []),
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
