/*
 * How the service is assembled. Each domain exports one factory, `create<Domain>Domain(ports)` in
 * `server/<domain>/domain.ts`, taking only the ports it reads (a Pick of AppContext plus the services
 * of other domains it needs) and returning its services by name (`service` the main one). This file
 * calls each factory once, builds each service exactly once and passes it to every transport and
 * domain that needs it; transports and domains never build another's services themselves.
 */

import type http from "node:http";
import { createAuthenticator } from "./auth/authenticator.js";
import type { Clock } from "./clock.js";
import { systemClock } from "./clock.js";
import type { Config } from "./config.js";
import type { AppContext } from "./context.js";
import type { EventBus } from "./events/bus.js";
import { openEventBus } from "./events/open.js";
import { stampFingerprinter } from "./fingerprints/stamp-fingerprinter.js";
import { authInterceptor } from "./grpc/auth-interceptor.js";
import { grpcLimits } from "./grpc/limits.js";
import type { GrpcListener } from "./grpc/listener.js";
import { metricsInterceptor } from "./grpc/metrics-interceptor.js";
import { createGrpcServer, type GrpcServer } from "./grpc/server.js";
import { grpcStampService } from "./grpc/stamp-service.js";
import { HealthChecks } from "./health/health-checks.js";
import { Readiness } from "./health/readiness.js";
import { Idempotency } from "./idempotency/idempotency.js";
import { openDeploymentKeys } from "./keys/deployment-keys.js";
import type { Logger } from "./logger.js";
import { createLogger } from "./logger.js";
import { countPublishedEvents } from "./metrics/event-counts.js";
import { Metrics } from "./metrics/metrics.js";
import {
  scrapePendingAnchors,
  scrapeRateLimiter,
  scrapeVaults,
  scrapeWebSocket,
} from "./metrics/scrape-sources.js";
import { countStampCreations } from "./metrics/stamp-counting.js";
import { timeStoreQueries } from "./metrics/store-timing.js";
import { createProofDomain, type ProofDomain } from "./proofs/domain.js";
import type { RateLimiter } from "./ratelimit/limiter.js";
import { openRateLimiter } from "./ratelimit/open.js";
import { createRestApp } from "./rest/app.js";
import { explorerHandlers } from "./rest/handlers/explorer-handlers.js";
import { fingerprintHandlers } from "./rest/handlers/fingerprint-handlers.js";
import type { Handlers } from "./rest/handlers/handler.js";
import { healthHandlers } from "./rest/handlers/health-handlers.js";
import { keyRingHandlers } from "./rest/handlers/key-ring-handlers.js";
import { logHandlers } from "./rest/handlers/log-handlers.js";
import { logTileHandlers, stampLogTileHandlers } from "./rest/handlers/log-tile-handlers.js";
import { metricsHandlers, metricsOnRestPort } from "./rest/handlers/metrics-handlers.js";
import { pageHandlers } from "./rest/handlers/page-handlers.js";
import { proofHandlers } from "./rest/handlers/proof-handlers.js";
import { sigstoreHandlers } from "./rest/handlers/sigstore-handlers.js";
import { stampingHandlers } from "./rest/handlers/stamping-handlers.js";
import { vaultHandlers } from "./rest/handlers/vault-handlers.js";
import { wsHandlers } from "./rest/handlers/ws-handlers.js";
import { createHttpServer } from "./rest/http-server.js";
import { createMetricsServer } from "./rest/metrics-server.js";
import { handOver } from "./rest/startup.js";
import { clearStaleSpool, spoolFolder } from "./rest/uploads/upload-spool.js";
import { createSigstoreDomain, type SigstoreDomain } from "./sigstore/domain.js";
import { createStampDomain, type StampDomain } from "./stamps/domain.js";
import { warnOfWidePermissions } from "./store/file-modes.js";
import { openStore, sqlitePath } from "./store/open.js";
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
  /** Starts as `starting`; build() sets it `ready` when it is done. */
  readiness?: Readiness;
  /**
   * A REST listener already answering `starting` (rest/startup.ts), handed over to the app once
   * it is built; without one build() makes the server.
   */
  http?: http.Server;
  /** The same for gRPC: a listener already answering as starting (grpc/startup.ts). */
  grpc?: GrpcListener;
}

export interface AssembledService {
  ctx: AppContext;
  /** The REST (and WebSocket) server, not yet listening unless given as `options.http`. */
  http: http.Server;
  /**
   * The gRPC server (HTTP/2 cleartext), not yet listening unless given as `options.grpc`; its
   * services' Connect and gRPC-Web calls are answered on `http` too.
   */
  grpc: GrpcServer;
  /** The WebSocket endpoint `/ws` on `http`; shutdown closes its connections with 1001. */
  ws: WsServer;
  /** Rate limiting, for statistics (`stats()`); absent when `RATE_LIMIT_ENABLED` is false. */
  rateLimiter?: RateLimiter;
  /** Stamps, identities and search (tests make stamps with `stamps.service`). */
  stamps: StampDomain;
  /** The vault's operations and its scheduler (tests call `vault.scheduler.tick()` after moving the clock). */
  vault: VaultDomain;
  /** Batching, the transparency log and anchoring (tests call `proofs.pipeline.tick()`). */
  proofs: ProofDomain;
  /** Sigstore bundles and the stamp log (tests call `sigstore.mirroring.tick()`). */
  sigstore: SigstoreDomain;
  /** GET /ready and the gRPC health services; shutdown sets it `stopping`. */
  readiness: Readiness;
  /** The listener of `METRICS_PORT`, not yet listening; absent when /metrics is on the REST port or off. */
  metricsServer?: http.Server;
  /** Stops background work and closes the store; the caller closes the listeners first. */
  close(): Promise<void>;
}

/** Assembles the service from configuration without listening on any port. */
export async function build(config: Config, options: BuildOptions = {}): Promise<AssembledService> {
  const logger = options.logger ?? createLogger(config);
  const readiness = options.readiness ?? new Readiness();
  const metrics = new Metrics({ logger, processMetrics: config.METRICS_ENABLED });
  const store = timeStoreQueries(options.store ?? (await openStore(config)), metrics);
  await store.migrate();
  // Uploads a crash left half-spooled (server/rest/uploads/upload-spool.ts) go before any new one comes.
  await clearStaleSpool(spoolFolder(config), logger);
  const events = countPublishedEvents(options.events ?? (await openEventBus(config, logger)), metrics);
  // One clock per deployment: the database's where the store has one (docs/design.md, Time).
  const clock = options.clock ?? store.clock ?? systemClock;
  const rateLimiter =
    options.rateLimiter ?? (await openRateLimiter(config, { logger, clock: options.clock }));
  // Given the limiter, refused keys are charged to their address: guessing keys is throttled.
  const auth = createAuthenticator(config, store, clock, rateLimiter);
  // Before anything is written: an instance whose keys are not the deployment's stops here.
  const keys = await openDeploymentKeys(config, store, clock, logger);
  warnOfWidePermissions(config.DATA_DIR, sqlitePath(config), logger);
  const ctx: AppContext = { config, logger, clock, store, events, auth, keys, rateLimiter, metrics };
  const vault = createVaultDomain(ctx);
  const proofs = await createProofDomain(ctx);
  const stamps = createStampDomain({ ...ctx, evidence: proofs.evidence, fingerprinter: stampFingerprinter });
  const sigstore = createSigstoreDomain(ctx, proofs.tsa);
  const stampsVia = (transport: "rest" | "grpc" | "websocket") =>
    countStampCreations(stamps.service, metrics, transport);
  const ws = createWsServer(ctx, stampsVia("websocket"));
  const idempotency = new Idempotency(store.idempotency, clock);
  const health = new HealthChecks(
    {
      store,
      redis: config.REDIS_URL ? () => pingRedis(events, rateLimiter) : undefined,
      mirror: proofs.log.tiles.hasMirrors
        ? () => proofs.log.tiles.mirrorsHealthy() && sigstore.log.tiles.mirrorsHealthy()
        : undefined,
      batcher: proofs.pipeline.liveness,
      scheduler: vault.scheduler.liveness,
    },
    logger,
  );
  // Each domain contributes its REST handlers here; operations without one answer 501.
  const handlers: Handlers = {
    ...healthHandlers(health, readiness, clock, config.STORE_RETRY_AFTER_SECONDS),
    ...metricsHandlers(config, metrics),
    ...wsHandlers(ws),
    ...stampingHandlers(ctx, { ...stamps, service: stampsVia("rest") }),
    ...vaultHandlers(vault.service, idempotency, logger),
    ...explorerHandlers(vault.explorer, config.VAULT_FEE_CURRENCY),
    ...fingerprintHandlers(ctx),
    ...logHandlers(proofs),
    ...keyRingHandlers(keys.ring, config.KEY_RING_REFRESH_SECONDS),
    ...logTileHandlers(proofs.log),
    ...proofHandlers(proofs.service, proofs.ots),
    ...sigstoreHandlers(sigstore.service),
    ...stampLogTileHandlers(sigstore.log),
    ...pageHandlers(ctx, { stamps: stamps.service, explorer: vault.explorer, ws }),
  };
  const grpc = createGrpcServer({
    logger,
    readiness,
    services: [grpcStampService(ctx, stampsVia("grpc"), stamps.search, readiness, sigstore.service)],
    interceptors: [authInterceptor(auth)],
    observers: [metricsInterceptor(metrics)],
    limits: grpcLimits(config),
    listener: options.grpc,
    corsOrigins: config.CORS_ORIGINS,
  });
  const rest = createRestApp(ctx, handlers);
  // The REST port also answers the svc.v1 calls over HTTP/1.1 (Connect, gRPC-Web: docs/grpc.md),
  // which browsers and curl speak; every other path is REST's.
  const app: http.RequestListener = (req, res) => grpc.http1(req, res, () => rest(req, res));
  const server = options.http ? handOver(options.http, app) : createHttpServer(config, app);
  server.on("upgrade", ws.handleUpgrade);
  // Vaults that fell due while the service was down expire (once) before it answers anyone.
  await vault.scheduler.tick();
  vault.scheduler.start();
  // Stamps left pending by a stop or a crash are batched (once) before the service answers.
  await proofs.pipeline.tick();
  proofs.pipeline.start();
  // The stamp log's mirrors likewise (tile-mirror-loop.ts): filled before the service answers.
  await sigstore.mirroring.tick();
  sigstore.mirroring.start();
  keys.ring.start((err) =>
    logger.warn({ err }, "could not re-read the key ring; signing with the keys read before"),
  );
  scrapeVaults(metrics, store.vaults);
  scrapePendingAnchors(metrics, store.anchors);
  scrapeWebSocket(metrics, ws);
  if (rateLimiter) scrapeRateLimiter(metrics, rateLimiter);
  const metricsServer =
    config.METRICS_ENABLED && !metricsOnRestPort(config)
      ? createMetricsServer(metrics, logger, config)
      : undefined;
  // An instance whose store stops answering is not ready until it answers again (GET /ready).
  readiness.follow(store.availability);
  readiness.set("ready");
  return {
    ctx,
    http: server,
    grpc,
    ws,
    rateLimiter,
    stamps,
    vault,
    proofs,
    sigstore,
    readiness,
    metricsServer,
    async close() {
      keys.ring.stop();
      await vault.scheduler.stop();
      await proofs.pipeline.stop();
      await sigstore.mirroring.stop();
      await ws.close(0);
      await rateLimiter?.close();
      await events.close();
      await store.close();
    },
  };
}

/** Both users of Redis: the event bus and, when it keeps its state there, the rate limiter. */
async function pingRedis(events: EventBus, rateLimiter: RateLimiter | undefined): Promise<void> {
  await Promise.all([events.ping(), rateLimiter?.ping()]);
}
