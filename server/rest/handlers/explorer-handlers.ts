import type { ExplorerService } from "../../explorer/explorer-service.js";
import { explorerItemView, statsView } from "../views/vault-views.js";
import { type Handlers, sendJson } from "./handler.js";
import { pageQuery } from "./vault-handlers.js";

/** REST handlers of the public explorer (spec tag `explorer`). */
export function explorerHandlers(explorer: ExplorerService, feeCurrency: string): Handlers {
  return {
    listExplorerVaults: async (req, res) => {
      const page = pageQuery(req, 100);
      const { items, total } = await explorer.list(page);
      sendJson(res, "listExplorerVaults", 200, {
        items: items.map(explorerItemView),
        total,
        limit: page.limit,
        offset: page.offset,
      });
    },
    getExplorerStats: async (_req, res) => {
      sendJson(res, "getExplorerStats", 200, statsView(await explorer.stats(), feeCurrency));
    },
  };
}
