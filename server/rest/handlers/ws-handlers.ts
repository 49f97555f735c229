import type { WsStatsSource } from "../../http/ws-stats.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /ws/stats: the WebSocket endpoint's counters (the endpoint itself is server/ws/). */
export function wsHandlers(ws: WsStatsSource): Handlers {
  return {
    getWsStats: (_req, res) => {
      sendJson(res, "getWsStats", 200, ws.stats());
    },
  };
}
