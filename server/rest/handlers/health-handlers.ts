import type { Clock } from "../../clock.js";
import type { HealthChecks } from "../../health/health-checks.js";
import type { Readiness } from "../../health/readiness.js";
import { VERSION } from "../../version.js";
import type { Handlers } from "./handler.js";
import { sendJson } from "./handler.js";

/** GET /health (checks) and GET /ready (readiness; a 503 says when to ask again, in seconds). */
export function healthHandlers(
  checks: HealthChecks,
  readiness: Readiness,
  clock: Clock,
  retryAfterSeconds: number,
): Handlers {
  return {
    getHealth: async (_req, res) => {
      const report = await checks.report();
      const body = { ...report, version: VERSION, timestamp: clock.now().toISOString() };
      if (report.status === "down") sendJson(res, "getHealth", 503, body);
      else sendJson(res, "getHealth", 200, body);
    },
    getReady: (_req, res) => {
      const status = readiness.status;
      if (status === "ready") {
        sendJson(res, "getReady", 200, { status });
        return;
      }
      res.setHeader("Retry-After", String(retryAfterSeconds));
      if (status === "unavailable") {
        sendJson(res, "getReady", 503, { status, unavailable: [...readiness.unavailable] });
      } else sendJson(res, "getReady", 503, { status });
    },
  };
}
