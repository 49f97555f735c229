import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Logger } from "../logger.js";

/** Seconds elapsed since `startMs`, a `performance.now()` reading. */
export const secondsSince = (startMs: number): number => (performance.now() - startMs) / 1000;

// Store calls take well under a millisecond on SQLite; PostgreSQL round trips a few.
const queryBuckets = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
// A stamp waits up to BATCH_INTERVAL_MS (1 s by default) for its batch; more means a backlog.
const waitBuckets = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300];

export interface MetricsOptions {
  logger: Logger;
  /** Node's process and runtime series (CPU, memory, event loop, GC): only where /metrics is served. */
  processMetrics: boolean;
}

/**
 * The service's Prometheus series, in a registry of its own (not prom-client's global one: tests
 * run several services in one process). Transports and domains record into the instruments below;
 * values that live elsewhere (the store's counts, the limiter's statistics) are read at scrape
 * time by the sources registered with `onScrape` (server/metrics/scrape-sources.ts).
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly sources: (() => Promise<void> | void)[] = [];

  readonly httpRequests = this.counter(
    "stampd_http_requests_total",
    "REST requests answered, by route (the OpenAPI path template), method and status.",
    ["route", "method", "status"],
  );
  readonly httpDuration = this.histogram(
    "stampd_http_request_duration_seconds",
    "Time from a REST request's arrival to its response's end, by route, method and status.",
    ["route", "method", "status"],
  );
  readonly grpcCalls = this.counter(
    "stampd_grpc_calls_total",
    "gRPC calls finished, by method (service/method) and status code.",
    ["method", "code"],
  );
  readonly grpcDuration = this.histogram(
    "stampd_grpc_call_duration_seconds",
    "gRPC call duration (streams: until the last message), by method and status code.",
    ["method", "code"],
  );
  readonly wsConnections = this.gauge("stampd_websocket_connections", "Open WebSocket connections.");
  readonly wsReceived = this.counter(
    "stampd_websocket_messages_received_total",
    "WebSocket frames received, by message type (`invalid`: not a valid request, `binary`: refused).",
    ["type"],
  );
  readonly wsSent = this.counter(
    "stampd_websocket_messages_sent_total",
    "WebSocket frames sent, replies and events, by message type.",
    ["type"],
  );
  readonly stampsCreated = this.counter(
    "stampd_stamps_created_total",
    "Stamps created by this instance, by transport (rest, grpc, websocket).",
    ["transport"],
  );
  readonly batchesSealed = this.counter("stampd_batches_sealed_total", "Merkle batches sealed.");
  readonly batchSealDuration = this.histogram(
    "stampd_batch_seal_duration_seconds",
    "Time to claim the waiting stamps, build and sign a batch and store it, per batch.",
  );
  readonly batchWait = new Histogram({
    name: "stampd_stamp_batch_wait_seconds",
    help: "Time from a stamp's creation to the sealing of its batch (service clock), per stamp.",
    buckets: waitBuckets,
    registers: [this.registry],
  });
  readonly anchorsPending = this.gauge(
    "stampd_anchors_pending",
    "Anchor records waiting to confirm, by anchor type (an anchor without an endpoint stays pending).",
    ["type"],
  );
  readonly anchorsSettled = this.counter(
    "stampd_anchors_settled_total",
    "Anchors this instance saw confirm or fail, by anchor type and outcome (confirmed, failed).",
    ["type", "outcome"],
  );
  readonly vaults = this.gauge("stampd_vaults", "Vaults by state.", ["state"]);
  readonly vaultHeartbeats = this.counter("stampd_vault_heartbeats_total", "Vault heartbeats accepted.");
  readonly vaultExpiries = this.counter("stampd_vault_expiries_total", "Vaults expired at their deadline.");
  readonly rateLimitDecisions = this.counter(
    "stampd_rate_limit_decisions_total",
    "Rate-limit decisions, by tier and outcome (allowed, limited).",
    ["tier", "outcome"],
  );
  readonly rateLimitTrackedClients = this.gauge(
    "stampd_rate_limit_tracked_clients",
    "Clients whose rate-limit state is kept (memory store: this process; Redis: the deployment).",
  );
  readonly rateLimitCleanups = this.counter(
    "stampd_rate_limit_cleanups_total",
    "Sweeps of idle rate-limit clients (every RATE_LIMIT_CLEANUP_INTERVAL_SECONDS).",
  );
  readonly rateLimitStoreErrors = this.counter(
    "stampd_rate_limit_store_errors_total",
    "Requests let through because the rate-limit store failed.",
  );
  readonly storeQueryDuration = new Histogram({
    name: "stampd_store_query_duration_seconds",
    help: "Duration of store calls, by repository and method.",
    labelNames: ["repository", "method"],
    buckets: queryBuckets,
    registers: [this.registry],
  });

  constructor(private readonly options: MetricsOptions) {
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Adds a source that brings series up to date before each scrape. */
  onScrape(source: () => Promise<void> | void): void {
    this.sources.push(source);
  }

  /**
   * The exposition text. A failing source (the store is down) leaves its series at their last
   * values and is logged; the scrape itself still answers.
   */
  async scrape(): Promise<string> {
    const results = await Promise.allSettled(this.sources.map(async (source) => source()));
    for (const r of results) {
      if (r.status === "rejected") this.options.logger.warn({ err: r.reason }, "a metrics source failed");
    }
    return this.registry.metrics();
  }

  private counter<L extends string = never>(name: string, help: string, labelNames: L[] = []) {
    return new Counter<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private gauge<L extends string = never>(name: string, help: string, labelNames: L[] = []) {
    return new Gauge<L>({ name, help, labelNames, registers: [this.registry] });
  }

  private histogram<L extends string = never>(name: string, help: string, labelNames: L[] = []) {
    return new Histogram<L>({ name, help, labelNames, registers: [this.registry] });
  }
}
