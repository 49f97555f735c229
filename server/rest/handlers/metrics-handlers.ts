import type { Config } from "../../config.js";
import type { Metrics } from "../../metrics/metrics.js";
import type { Handler, Handlers } from "./handler.js";

/** Whether GET /metrics is served on the REST port (not when off, nor when METRICS_PORT has it). */
export const metricsOnRestPort = (config: Pick<Config, "METRICS_ENABLED" | "METRICS_PORT">): boolean =>
  config.METRICS_ENABLED && config.METRICS_PORT === undefined;

/** The exposition text, as Prometheus scrapes it. */
export const serveMetrics =
  (metrics: Metrics): Handler =>
  async (_req, res) => {
    const text = await metrics.scrape();
    res.status(200).type(metrics.contentType).send(text);
  };

/** GET /metrics; answers exactly like an unknown path where metrics are not served. */
export function metricsHandlers(config: Config, metrics: Metrics): Handlers {
  if (metricsOnRestPort(config)) return { getMetrics: serveMetrics(metrics) };
  return { getMetrics: (_req, res) => void res.status(404).json({ detail: "not found" }) };
}
