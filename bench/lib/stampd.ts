// stampd as the benchmarks run it, inside a server process of its own: the real service (build()),
// configured from the environment like server/main.ts, but with rate-limit tiers too high to refuse:
// the load comes from one address, and the benchmarks measure the limiter's cost, not its refusals.
import type { AddressInfo } from "node:net";
import { type AssembledService, build } from "../../server/build.js";
import { loadConfig } from "../../server/config.js";
import { listen, shutdownGracefully } from "../../server/lifecycle.js";
import { createLogger } from "../../server/logger.js";
import { openRateLimiter } from "../../server/ratelimit/open.js";

export interface StampdPorts {
  http: number;
  grpc: number;
}

export async function startStampd(): Promise<{ service: AssembledService; ports: StampdPorts }> {
  const config = loadConfig();
  const logger = createLogger(config);
  const unlimited = { perMinute: 1e12, perHour: 1e12, burst: 1e12 };
  const tiers = { anonymous: unlimited, authenticated: unlimited, premium: unlimited, internal: unlimited };
  const rateLimiter = await openRateLimiter(config, { logger, tiers, bulkItems: tiers });
  const service = await build(config, { logger, rateLimiter });
  await listen(service.http, 0, "127.0.0.1");
  await listen(service.grpc.server, 0, "127.0.0.1");
  const port = (server: { address(): unknown }) => (server.address() as AddressInfo).port;
  process.on("SIGTERM", () => void shutdownGracefully(service, 1000).then(() => process.exit(0)));
  return { service, ports: { http: port(service.http), grpc: port(service.grpc.server) } };
}
