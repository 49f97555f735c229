import http from "node:http";
import type { Clock } from "./clock.js";
import { systemClock } from "./clock.js";
import type { Config } from "./config.js";
import type { AppContext } from "./context.js";
import type { EventBus } from "./events/bus.js";
import { MemoryEventBus } from "./events/memory-bus.js";
import { createGrpcServer, type GrpcServer } from "./grpc/server.js";
import { ServingState } from "./grpc/serving-state.js";
import { stampService } from "./grpc/stamp-service.js";
import type { Logger } from "./logger.js";
import { createLogger } from "./logger.js";
import { createRestApp } from "./rest/app.js";
import type { Handlers } from "./rest/handler.js";
import { openStore } from "./store/open.js";
import type { Store } from "./store/store.js";

export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
  store?: Store;
  events?: EventBus;
}

export interface Service {
  ctx: AppContext;
  /** The REST (and WebSocket) server, not yet listening. */
  http: http.Server;
  /** The gRPC server (HTTP/2 cleartext), not yet listening. */
  grpc: GrpcServer;
  /** Stops background work and closes the store; the caller closes the listeners first. */
  close(): Promise<void>;
}

/** Assembles the service from configuration without listening on any port. */
export async function build(config: Config, options: BuildOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(config);
  const store = options.store ?? openStore(config);
  await store.migrate();
  const events = options.events ?? new MemoryEventBus(logger);
  const ctx: AppContext = { config, logger, clock: options.clock ?? systemClock, store, events };
  // Each domain contributes its REST handlers here; operations without one answer 501.
  const handlers: Handlers = {};
  const app = createRestApp(ctx, handlers);
  const server = http.createServer(app);
  const serving = new ServingState();
  const grpc = createGrpcServer({ logger, state: serving, services: [stampService(serving)] });
  return {
    ctx,
    http: server,
    grpc,
    async close() {
      await events.close();
      await store.close();
    },
  };
}
