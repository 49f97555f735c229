import type { Response } from "express";
import { publicBaseUrl } from "../config.js";
import type { AppContext } from "../context.js";
import { ServiceError } from "../errors.js";
import type { ExplorerService } from "../explorer/explorer-service.js";
import { dashboardPage } from "../pages/dashboard-page.js";
import { type DashboardSources, dashboardStats } from "../pages/dashboard-stats.js";
import { notFoundPage } from "../pages/not-found-page.js";
import { pageSecurityHeaders } from "../pages/security-headers.js";
import { StampActivity } from "../pages/stamp-activity.js";
import { tokenUrl } from "../pages/token-link.js";
import { verifyPage } from "../pages/verify-page.js";
import type { StampService } from "../stamps/stamp-service.js";
import type { WsServer } from "../ws/ws-server.js";
import { type Handlers, sendJson } from "./handler.js";
import { toStampResponse } from "./stamp-response.js";

export interface PageDeps {
  stamps: StampService;
  explorer: ExplorerService;
  ws: Pick<WsServer, "stats">;
}

/** The HTML pages people look at (GET /verify/{stamp_id}, GET /dashboard) and the dashboard's counts. */
export function pageHandlers(ctx: AppContext, deps: PageDeps): Handlers {
  const base = publicBaseUrl(ctx.config);
  const headers = pageSecurityHeaders(base);
  const sendPage = (res: Response, status: number, page: string) => {
    res.status(status).set(headers).type("html").send(page);
  };
  const sources: DashboardSources = {
    activity: new StampActivity(ctx.events, ctx.clock),
    explorer: deps.explorer,
    connections: () => deps.ws.stats().connections,
    feeCurrency: ctx.config.VAULT_FEE_CURRENCY,
    clock: ctx.clock,
  };
  return {
    getVerifyPage: async (req, res) => {
      const id = req.params.stamp_id as string;
      try {
        const stamp = toStampResponse(await deps.stamps.get(id), base);
        const result = await deps.stamps.verifyById(id);
        const token = tokenUrl(base, stamp);
        sendPage(res, 200, verifyPage({ base, stamp, result, tokenUrl: token }));
      } catch (err) {
        if (!(err instanceof ServiceError && err.code === "not_found")) throw err;
        sendPage(res, 404, notFoundPage(base, id));
      }
    },
    getDashboard: async (_req, res) => {
      sendPage(res, 200, dashboardPage(base, await dashboardStats(sources)));
    },
    getDashboardStats: async (_req, res) => {
      sendJson(res, "getDashboardStats", 200, await dashboardStats(sources));
    },
  };
}
