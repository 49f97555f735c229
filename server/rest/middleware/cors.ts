import cors from "cors";
import type { NextFunction, Request, RequestHandler, Response } from "express";

// Response headers a page of another origin may read (the request id and the rate-limit figures).
const EXPOSED_HEADERS = [
  "X-Request-Id",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "X-RateLimit-Tier",
  "Retry-After",
];

/**
 * CORS for `origins` (CORS_ORIGINS; `*` allows any) by the cors package, which runs only where it
 * has something to decide: a preflight (OPTIONS) or a request naming its Origin. Any other request
 * gets the headers cors gives a request without an Origin, built once: with `*` the allowed origin
 * and the exposed headers, with a list `Vary: Origin` and the exposed headers. cors builds its
 * options and header lists again for every request.
 */
export function corsFor(origins: string[]): RequestHandler {
  const options: cors.CorsOptions = {
    origin: origins.includes("*") ? "*" : origins,
    exposedHeaders: EXPOSED_HEADERS,
  };
  const full = cors(options);
  const fixed: [string, string][] = [
    options.origin === "*" ? ["Access-Control-Allow-Origin", "*"] : ["Vary", "Origin"],
    ["Access-Control-Expose-Headers", EXPOSED_HEADERS.join(",")],
  ];
  return function corsHeaders(req: Request, res: Response, next: NextFunction): void {
    if (req.method === "OPTIONS" || req.headers.origin !== undefined) {
      full(req, res, next);
      return;
    }
    for (let i = 0; i < fixed.length; i++) res.setHeader(fixed[i]![0], fixed[i]![1]);
    next();
  };
}
