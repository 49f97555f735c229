import type http from "node:http";
import type { Logger } from "../logger.js";
import type { Metrics } from "../metrics/metrics.js";
import { createHttpServer, type HttpLimits } from "./http-server.js";

/**
 * The listener of `METRICS_PORT`: `GET /metrics` and nothing else, without keys or rate limits,
 * for a port that only the monitoring network reaches. It keeps the REST listener's connection
 * limits (header size, timeouts, connection cap), so a slow or flooding client cannot pin it.
 */
export function createMetricsServer(metrics: Metrics, logger: Logger, limits: HttpLimits): http.Server {
  return createHttpServer(limits, (req, res) => {
    const path = new URL(req.url ?? "/", "http://metrics").pathname;
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      json(res, 404, { detail: "not found" });
      return;
    }
    metrics.scrape().then(
      (text) => {
        res.writeHead(200, { "content-type": metrics.contentType, "x-content-type-options": "nosniff" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (err) => {
        logger.error({ err }, "metrics scrape failed");
        json(res, 500, { detail: "internal error" });
      },
    );
  });
}

function json(res: http.ServerResponse, status: number, body: object): void {
  res.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "x-content-type-options": "nosniff",
  });
  res.end(JSON.stringify(body));
}
