import http from "node:http";
import { createAuthenticator } from "./auth/authenticator.js";
import type { Clock } from "./clock.js";
import { systemClock } from "./clock.js";
import type { Config } from "./config.js";
import type { AppContext } from "./context.js";
import type { EventBus } from "./events/bus.js";
import { openEventBus } from "./events/open.js";
import { ExplorerService } from "./explorer/explorer-service.js";
import { stampFingerprinter } from "./fingerprints/stamp-fingerprinter.js";
import { authInterceptor } from "./grpc/auth-interceptor.js";
import { createGrpcServer, type GrpcServer } from "./grpc/server.js";
import { ServingState } from "./grpc/serving-state.js";
import { stampService } from "./grpc/stamp-service.js";
import { Idempotency } from "./idempotency/idempotency.js";
import { loadServiceKeys } from "./keys/service-keys.js";
import type { Logger } from "./logger.js";
import { createLogger } from "./logger.js";
import { createProofDomain, type ProofDomain } from "./proofs/domain.js";
import type { RateLimiter } from "./ratelimit/limiter.js";
import { openRateLimiter } from "./ratelimit/open.js";
import { createRestApp } from "./rest/app.js";
import { explorerHandlers } from "./rest/explorer-handlers.js";
import { fingerprintHandlers } from "./rest/fingerprint-handlers.js";
import type { Handlers } from "./rest/handler.js";
import { logHandlers } from "./rest/log-handlers.js";
import { pageHandlers } from "./rest/page-handlers.js";
import { proofHandlers } from "./rest/proof-handlers.js";
import { stampingHandlers } from "./rest/stamping-handlers.js";
import { vaultHandlers } from "./rest/vault-handlers.js";
import { wsHandlers } from "./rest/ws-handlers.js";
import { stampServices } from "./stamps/services.js";
import { openStore } from "./store/open.js";
import type { Store } from "./store/store.js";
import { createVaultDomain, type VaultDomain } from "./vault/domain.js";
import { createWsServer, type WsServer } from "./ws/ws-server.js";

export interface BuildOptions {
  clock?: Clock;
  logger?: Logger;
  store?: Store;
  events?: EventBus;
  /** Replaces the limiter the configuration describes (the benchmark raises the tiers' limits). */
  rateLimiter?: RateLimiter;
}

export interface Service {
  ctx: AppContext;
  /** The REST (and WebSocket) server, not yet listening. */
  http: http.Server;
  /** The gRPC server (HTTP/2 cleartext), not yet listening. */
  grpc: GrpcServer;
  /** The WebSocket endpoint `/ws` on `http`; shutdown closes its connections with 1001. */
  ws: WsServer;
  /** Rate limiting, for statistics (`stats()`); absent when `RATE_LIMIT_ENABLED` is false. */
  rateLimiter?: RateLimiter;
  /** The vault's operations and its scheduler (tests call `vault.scheduler.tick()` after moving the clock). */
  vault: VaultDomain;
  /** Batching, the transparency log and anchoring (tests call `proofs.pipeline.tick()`). */
  proofs: ProofDomain;
  /** Stops background work and closes the store; the caller closes the listeners first. */
  close(): Promise<void>;
}

/** Assembles the service from configuration without listening on any port. */
export async function build(config: Config, options: BuildOptions = {}): Promise<Service> {
  const logger = options.logger ?? createLogger(config);
  const store = options.store ?? openStore(config);
  await store.migrate();
  const events = options.events ?? (await openEventBus(config, logger));
  // One clock per deployment: the database's where the store has one (docs/design.md, Time).
  const clock = options.clock ?? store.clock ?? systemClock;
  const auth = createAuthenticator(config, store, clock);
  const rateLimiter =
    options.rateLimiter ?? (await openRateLimiter(config, { logger, clock: options.clock }));
  const keys = loadServiceKeys(config, logger);
  const ctx: AppContext = { config, logger, clock, store, events, auth, keys, rateLimiter };
  // Each domain contributes its REST handlers here; operations without one answer 501.
  const stamping = stampServices(ctx, stampFingerprinter);
  const ws = createWsServer(ctx, stamping.stamps);
  const vault = createVaultDomain(ctx);
  const proofs = await createProofDomain(ctx);
  const idempotency = new Idempotency(store.idempotency, clock);
  const handlers: Handlers = {
    ...wsHandlers(ws),
    ...stampingHandlers(ctx, stamping),
    ...vaultHandlers(vault.service, idempotency, logger),
    ...explorerHandlers(new ExplorerService(vault.deps), config.VAULT_FEE_CURRENCY),
    ...fingerprintHandlers(ctx),
    ...logHandlers(proofs),
    ...proofHandlers(proofs.service),
    ...pageHandlers(ctx, { stamps: stamping.stamps, explorer: new ExplorerService(vault.deps), ws }),
  };
  const app = createRestApp(ctx, handlers);
  const server = http.createServer(app);
  server.on("upgrade", ws.handleUpgrade);
  const serving = new ServingState();
  const grpc = createGrpcServer({
    logger,
    state: serving,
    services: [stampService(ctx, stamping.stamps, serving)],
    interceptors: [authInterceptor(auth)],
  });
  // Vaults that fell due while the service was down expire (once) before it answers anyone.
  await vault.scheduler.tick();
  vault.scheduler.start();
  // Stamps left pending by a stop or a crash are batched (once) before the service answers.
  await proofs.pipeline.tick();
  proofs.pipeline.start();
  return {
    ctx,
    http: server,
    grpc,
    ws,
    rateLimiter,
    vault,
    proofs,
    async close() {
      await vault.scheduler.stop();
      await proofs.pipeline.stop();
      await ws.close(0);
      await rateLimiter?.close();
      await events.close();
      await store.close();
    },
  };
}
