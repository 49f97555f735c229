import type { Server } from "node:http";
import type { Http2Server } from "node:http2";
import type { AddressInfo } from "node:net";
import { trustedProxiesLine } from "./auth/client-address.js";
import { type AssembledService, build } from "./build.js";
import { type Config, ConfigError, loadConfig, publicBaseUrl } from "./config.js";
import { ServiceError } from "./errors.js";
import { grpcLimits } from "./grpc/limits.js";
import { GrpcListener } from "./grpc/listener.js";
import { Readiness } from "./health/readiness.js";
import { listen, shutdownGracefully } from "./lifecycle.js";
import { createLogger, type Logger } from "./logger.js";
import { createHttpServer } from "./rest/http-server.js";
import { startupResponder } from "./rest/startup.js";
import { describeStore } from "./store/describe.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config);
  // Both listeners come first, answering `starting` (REST: 503; gRPC: health NOT_SERVING, other
  // calls UNAVAILABLE) while migrations run, so probes and load balancers can tell a starting
  // service from a dead one, and a port taken fails before any migration.
  const readiness = new Readiness();
  const http = createHttpServer(config, startupResponder(readiness));
  const grpc = new GrpcListener(grpcLimits(config), readiness);
  const grpcHost = config.GRPC_HOST ?? config.HOST;
  await listen(http, config.PORT, config.HOST);
  await listen(grpc.server, config.GRPC_PORT, grpcHost);
  const rest = hostPort(config.HOST, portOf(http));
  logger.info(
    `REST listening on http://${rest} (also svc.v1 in Connect and gRPC-Web over HTTP/1.1; starting: /ready answers 503 until migrations finish)`,
  );
  logger.info(
    `gRPC listening on ${hostPort(grpcHost, portOf(grpc.server))} (HTTP/2 cleartext: gRPC, gRPC-Web and Connect; reflection and grpc.health.v1; starting: health answers NOT_SERVING until migrations finish)`,
  );
  const service = await build(config, { logger, readiness, http, grpc });
  logger.info(`WebSocket listening on ws://${rest}/ws`);
  const metricsHost = config.METRICS_HOST ?? config.HOST;
  if (service.metricsServer) await listen(service.metricsServer, config.METRICS_PORT!, metricsHost);
  logger.info(metricsLine(config, service.metricsServer, rest));
  logger.info(`store: ${describeStore(config)}`);
  logger.info(trustedProxiesLine(config.TRUSTED_PROXIES));
  logger.info(`docs: ${docsBase(config, portOf(http))}/docs (Swagger UI), /redoc (ReDoc), /openapi.json`);
  logger.info("ready");
  handleSignals(config, logger, service);
}

function metricsLine(config: Config, server: Server | undefined, rest: string): string {
  if (!config.METRICS_ENABLED) return "metrics off (METRICS_ENABLED=false)";
  if (!server) return `metrics at http://${rest}/metrics`;
  const { address, port } = server.address() as AddressInfo;
  return `metrics listening on http://${hostPort(address, port)}/metrics (not on the REST port)`;
}

/** Where people find the docs: the public address when set, else this listener. */
function docsBase(config: Config, port: number): string {
  if (config.SERVICE_BASE_URL) return publicBaseUrl(config);
  return publicBaseUrl({ ...config, PORT: port });
}

const hostPort = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;

function portOf(server: Server | Http2Server): number {
  return (server.address() as AddressInfo).port;
}

/** SIGTERM/SIGINT: graceful shutdown; a second signal skips the drain delay. */
function handleSignals(config: Config, logger: Logger, service: AssembledService): void {
  const skipDelay = new AbortController();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      skipDelay.abort();
      return;
    }
    stopping = true;
    logger.info({ signal, delayMs: config.SHUTDOWN_DELAY_MS }, "shutting down: not ready any more");
    const drain = { delayMs: config.SHUTDOWN_DELAY_MS, skip: skipDelay.signal };
    shutdownGracefully(service, config.SHUTDOWN_GRACE_MS, drain).then(
      () => process.exit(0),
      (err) => {
        logger.error({ err }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(startupFailure(err));
  process.exit(1);
});

/**
 * An environment problem (port taken, database or Redis unreachable, a folder not writable, a full
 * disk) is the operator's to fix: one line naming it. Anything else is a bug, and its stack is wanted.
 */
function startupFailure(err: unknown): unknown {
  // A store that does not answer or cannot write (store_unavailable, storage_full), as requests see it.
  if (err instanceof ServiceError && err.code === "unavailable") {
    return `stampd: cannot start: ${err.message} (${err.reason})`;
  }
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return err;
  // A refused dual-stack connect is an AggregateError with a code but no message.
  return `stampd: cannot start: ${(err as Error).message || code} (${code})`;
}
