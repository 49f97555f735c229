import type { NextFunction, Request, Response } from "express";
import { type Metrics, secondsSince } from "../../metrics/metrics.js";
import { routeTemplates } from "../route-template.js";

declare module "express-serve-static-core" {
  interface Response {
    /** When the request arrived (performance.now()) and its route template, for its metrics. */
    metricsStart?: number;
    metricsRoute?: string;
  }
}

type Labels = { route: string; method: string; status: string };

/**
 * Counts and times every REST response by route template, method and status. Mounted first, so
 * refusals (401, 429, 413, validation) are measured like answers. Per request it allocates no
 * closure and no label object: one shared `finish` listener reads what was kept on the response,
 * and each (route, method, status) has one label object, made when first met (a small fixed set:
 * templates, not paths).
 */
export function httpMetrics(metrics: Metrics) {
  const templateOf = routeTemplates();
  const labelsByKey = new Map<string, Labels>();
  function countResponse(this: Response): void {
    const { req, statusCode } = this;
    const key = `${this.metricsRoute} ${req.method} ${statusCode}`;
    let labels = labelsByKey.get(key);
    if (labels === undefined) {
      labels = { route: this.metricsRoute!, method: req.method, status: String(statusCode) };
      labelsByKey.set(key, labels);
    }
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, secondsSince(this.metricsStart!));
  }
  return function measureRequest(req: Request, res: Response, next: NextFunction): void {
    res.metricsStart = performance.now();
    // Read now: mounted routers rewrite req.url while they run.
    res.metricsRoute = templateOf(req.path);
    res.on("finish", countResponse);
    next();
  };
}
