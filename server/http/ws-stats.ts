import type { components } from "../../gen/openapi/types.js";

export type WsStats = components["schemas"]["WsStats"];

/**
 * The WebSocket endpoint's counters, as REST serves them (GET /ws/stats, the dashboard's count of
 * connections): the WebSocket server provides them and build.ts hands it to REST, so neither
 * transport imports the other.
 */
export interface WsStatsSource {
  stats(): WsStats;
}
