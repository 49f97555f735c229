import type { WsServer } from "../ws/ws-server.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /ws/stats: the WebSocket endpoint's counters (the endpoint itself is server/ws/). */
export function wsHandlers(ws: WsServer): Handlers {
  return {
    getWsStats: (_req, res) => {
      sendJson(res, "getWsStats", 200, ws.stats());
    },
  };
}
