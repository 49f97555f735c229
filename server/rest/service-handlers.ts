import { VERSION } from "../version.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /; GET /health and /ready are health-handlers.ts (they need the running domains). */
export function serviceHandlers(): Handlers {
  return {
    getRoot: (_req, res) => {
      sendJson(res, "getRoot", 200, {
        name: "stampd",
        version: VERSION,
        docs: "/docs",
        health: "/health",
        dashboard: "/dashboard",
      });
    },
  };
}
