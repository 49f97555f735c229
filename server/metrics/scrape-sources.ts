import { anchorTypes, vaultStates } from "../../gen/openapi/enums.js";
import type { AnchorRepository } from "../anchors/anchor-repository.js";
import type { RateLimiter } from "../ratelimit/limiter.js";
import type { VaultRepository } from "../vault/vault-repository.js";
import type { Metrics } from "./metrics.js";

/** Vaults by state, counted in the store at each scrape (the deployment's, on a shared database). */
export function scrapeVaults(metrics: Metrics, vaults: Pick<VaultRepository, "countByState">): void {
  metrics.onScrape(async () => {
    const counts = await vaults.countByState();
    for (const state of vaultStates) metrics.vaults.set({ state }, counts[state] ?? 0);
  });
}

/** Pending anchor records by type, counted in the store at each scrape. */
export function scrapePendingAnchors(
  metrics: Metrics,
  anchors: Pick<AnchorRepository, "pendingByType">,
): void {
  metrics.onScrape(async () => {
    const counts = await anchors.pendingByType();
    for (const type of anchorTypes) metrics.anchorsPending.set({ type }, counts[type] ?? 0);
  });
}

/** Open WebSocket connections, as the endpoint counts them. */
export function scrapeWebSocket(metrics: Metrics, ws: { stats(): { connections: number } }): void {
  metrics.onScrape(() => metrics.wsConnections.set(ws.stats().connections));
}

/**
 * The limiter's own statistics (`RateLimiter.stats()`), one call per scrape: its counters are
 * copied, since the limiter keeps the counts whichever transport asked.
 */
export function scrapeRateLimiter(metrics: Metrics, limiter: RateLimiter): void {
  metrics.onScrape(async () => {
    const stats = await limiter.stats();
    metrics.rateLimitDecisions.reset();
    for (const [outcome, byTier] of [
      ["allowed", stats.allowed],
      ["limited", stats.limited],
    ] as const) {
      for (const [tier, n] of Object.entries(byTier)) metrics.rateLimitDecisions.inc({ tier, outcome }, n);
    }
    metrics.rateLimitTrackedClients.set(stats.trackedClients);
    copyCounter(metrics.rateLimitCleanups, stats.cleanups);
    copyCounter(metrics.rateLimitStoreErrors, stats.storeErrors);
  });
}

function copyCounter(counter: Metrics["rateLimitCleanups"], value: number): void {
  counter.reset();
  counter.inc(value);
}
