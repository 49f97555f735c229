import { vaultStates } from "../../gen/openapi/enums.js";
import type { components } from "../../gen/openapi/types.js";
import type { Clock } from "../clock.js";
import type { ExplorerService } from "../explorer/explorer-service.js";
import type { VaultState } from "../vault/state.js";
import type { StampActivity } from "./stamp-activity.js";

export type DashboardStats = components["schemas"]["DashboardStats"];

export interface DashboardSources {
  activity: StampActivity;
  explorer: ExplorerService;
  /** Every stamp the store holds (its maintained counter). */
  stampTotal: () => Promise<number>;
  /** Open WebSocket connections of this process. */
  connections: () => number;
  feeCurrency: string;
  clock: Clock;
}

/** GET /dashboard/stats, and the first numbers the dashboard page is rendered with. */
export async function dashboardStats(sources: DashboardSources): Promise<DashboardStats> {
  const stamps = sources.activity.snapshot();
  // The explorer's exact totals: one page of one item per state gives that state's count.
  const [byState, totals, stampTotal] = await Promise.all([
    Promise.all(vaultStates.map((state) => sources.explorer.list({ state, limit: 1, offset: 0 }))),
    sources.explorer.stats(),
    sources.stampTotal(),
  ]);
  const count = (state: VaultState) => byState[vaultStates.indexOf(state)]!.total;
  return {
    generated_at: sources.clock.now().toISOString(),
    stamps: {
      total: stampTotal,
      per_minute: { from: stamps.from.toISOString(), counts: stamps.perMinute },
    },
    vaults: {
      total: totals.total,
      active: count("active"),
      released: count("released"),
      expired: count("expired"),
      burned: count("burned"),
      heartbeats: totals.heartbeats,
    },
    fees: { collected: totals.feesCollected, currency: sources.feeCurrency },
    websocket: { connections: sources.connections() },
  };
}
