import { landingPage } from "../../pages/landing-page.js";
import { pageSecurityHeaders } from "../../pages/security-headers.js";
import { VERSION } from "../../version.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /; GET /health and /ready are health-handlers.ts (they need the running domains). */
export function serviceHandlers(base: string): Handlers {
  const headers = pageSecurityHeaders(base);
  return {
    getRoot: (req, res) => {
      // Content negotiation: the JSON root object unless the client prefers HTML to JSON (a
      // browser's Accept); `*/*` or no Accept at all is JSON, which every API client expects.
      res.vary("Accept");
      if (req.accepts(["application/json", "text/html"]) === "text/html") {
        res.status(200).set(headers).type("html").send(landingPage(base));
        return;
      }
      sendJson(res, "getRoot", 200, {
        name: "stampd",
        version: VERSION,
        docs: "/docs",
        health: "/health",
        dashboard: "/dashboard",
        explorer: "/explorer",
      });
    },
  };
}
