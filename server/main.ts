import type { AddressInfo } from "node:net";
import { build } from "./build.js";
import { ConfigError, loadConfig } from "./config.js";
import { listen, shutdownGracefully } from "./lifecycle.js";

async function main(): Promise<void> {
  const config = loadConfig();
  const service = await build(config);
  const { logger } = service.ctx;
  await listen(service.http, config.PORT, config.HOST);
  const { port } = service.http.address() as AddressInfo;
  const grpcHost = config.GRPC_HOST ?? config.HOST;
  await listen(service.grpc.server, config.GRPC_PORT, grpcHost);
  const grpcPort = (service.grpc.server.address() as AddressInfo).port;
  logger.info(`REST and WebSocket listening on http://${config.HOST}:${port} (docs at /docs and /redoc)`);
  logger.info(
    `gRPC listening on ${grpcHost}:${grpcPort} (HTTP/2 cleartext; reflection and grpc.health.v1 on)`,
  );
  logger.info(`store: ${service.ctx.store.kind}`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "shutting down");
    shutdownGracefully(service, config.SHUTDOWN_GRACE_MS).then(
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
  console.error(err);
  process.exit(1);
});
