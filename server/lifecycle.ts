import type { Server } from "node:http";
import type { Service } from "./build.js";

export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/**
 * Stops accepting connections, lets in-flight requests finish for up to `graceMs`, then closes
 * what is left and the service's resources.
 */
export async function shutdownGracefully(service: Service, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => service.http.close(() => resolve()));
  service.http.closeIdleConnections();
  const timer = setTimeout(() => service.http.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
  await service.close();
}
