import type { Response } from "express";
import { publicBaseUrl } from "../../config.js";
import type { AppContext } from "../../context.js";
import { ServiceError } from "../../errors.js";
import type { ExplorerService } from "../../explorer/explorer-service.js";
import type { WsStatsSource } from "../../http/ws-stats.js";
import { dashboardPage } from "../../pages/dashboard-page.js";
import { type DashboardSources, dashboardStats } from "../../pages/dashboard-stats.js";
import { DEFAULT_LIMIT } from "../../pages/explorer-list.js";
import { explorerPage } from "../../pages/explorer-page.js";
import { notFoundPage } from "../../pages/not-found-page.js";
import { pageSecurityHeaders } from "../../pages/security-headers.js";
import { StampActivity } from "../../pages/stamp-activity.js";
import { tokenUrl } from "../../pages/token-link.js";
import { verifyPage } from "../../pages/verify-page.js";
import type { StampService } from "../../stamps/stamp-service.js";
import { toStampResponse } from "../views/stamp-response.js";
import { explorerItemView, statsView } from "../views/vault-views.js";
import { type Handlers, sendJson } from "./handler.js";
import { pageQuery } from "./vault-handlers.js";

export interface PageDeps {
  stamps: StampService;
  explorer: ExplorerService;
  ws: WsStatsSource;
}

/**
 * The HTML pages people look at (GET /verify/{stamp_id}, GET /dashboard, GET /explorer) and the
 * dashboard's counts; the landing page of GET / is service-handlers.ts (content negotiation).
 */
export function pageHandlers(ctx: AppContext, deps: PageDeps): Handlers {
  const base = publicBaseUrl(ctx.config);
  const headers = pageSecurityHeaders(base);
  const sendPage = (res: Response, status: number, page: string) => {
    res.status(status).set(headers).type("html").send(page);
  };
  const sources: DashboardSources = {
    activity: new StampActivity(ctx.events, ctx.clock),
    explorer: deps.explorer,
    stampTotal: () => ctx.store.stamps.count(),
    connections: () => deps.ws.stats().connections,
    feeCurrency: ctx.config.VAULT_FEE_CURRENCY,
    clock: ctx.clock,
  };
  return {
    getVerifyPage: async (req, res) => {
      const id = req.params.stamp_id as string;
      try {
        // One reading of the stamp's evidence for the whole page: status, timeline and score agree.
        const { view, result } = await deps.stamps.inspect(id);
        const stamp = toStampResponse(view, base);
        const token = tokenUrl(base, stamp);
        const signingKey = ctx.keys.ring?.entries.find(
          (k) => k.kind === "service" && k.public_key === stamp.stamp_json.service_public_key,
        );
        sendPage(res, 200, verifyPage({ base, stamp, result, tokenUrl: token, signingKey }));
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
    getExplorerPage: async (req, res) => {
      const page = pageQuery(req, DEFAULT_LIMIT);
      const [{ items, total }, stats] = await Promise.all([deps.explorer.list(page), deps.explorer.stats()]);
      const vaults = { items: items.map(explorerItemView), total, limit: page.limit, offset: page.offset };
      const view = { vaults, state: page.state, stats: statsView(stats, ctx.config.VAULT_FEE_CURRENCY) };
      sendPage(res, 200, explorerPage(base, view));
    },
  };
}
