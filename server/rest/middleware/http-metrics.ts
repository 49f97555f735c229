import type { NextFunction, Request, Response } from "express";
import { type Metrics, secondsSince } from "../../metrics/metrics.js";
import { routeTemplates } from "../route-template.js";

/**
 * Counts and times every REST response by route template, method and status. Mounted first, so
 * refusals (401, 429, 413, validation) are measured like answers.
 */
export function httpMetrics(metrics: Metrics) {
  const templateOf = routeTemplates();
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = performance.now();
    // Read now: mounted routers rewrite req.url while they run.
    const route = templateOf(req.path);
    res.once("finish", () => {
      const labels = { route, method: req.method, status: String(res.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, secondsSince(start));
    });
    next();
  };
}
