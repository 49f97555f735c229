import type { AppContext } from "../context.js";
import { VERSION } from "../version.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET / and GET /health. */
export function serviceHandlers(ctx: AppContext): Handlers {
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
    getHealth: async (_req, res) => {
      const status = await ctx.store.ping().then(
        () => "ok" as const,
        () => "down" as const,
      );
      res
        .status(status === "ok" ? 200 : 503)
        .json({ status, version: VERSION, timestamp: ctx.clock.now().toISOString() });
    },
  };
}
