import type http from "node:http";
import type { Readiness } from "../health/readiness.js";
import { VERSION } from "../version.js";

/**
 * What the REST listener answers before the application exists, while migrations run: `/ready`
 * and `/health` say `starting` with 503, so probes can tell a starting service from a dead one;
 * everything else is 503 too, with a hint to come back. `handOver` replaces it with the app.
 */
export function startupResponder(readiness: Readiness): http.RequestListener {
  return (req, res) => {
    const path = new URL(req.url ?? "/", "http://startup").pathname;
    const body =
      path === "/ready"
        ? { status: readiness.phase }
        : path === "/health"
          ? { status: "starting", version: VERSION, timestamp: new Date().toISOString() }
          : { detail: "the service is starting; retry shortly" };
    res.writeHead(503, {
      "content-type": "application/json; charset=utf-8",
      "x-content-type-options": "nosniff",
      "retry-after": "5",
    });
    res.end(JSON.stringify(body));
  };
}

/** Gives a listener that answered with `startupResponder` to the application. */
export function handOver(server: http.Server, app: http.RequestListener): http.Server {
  server.removeAllListeners("request");
  server.on("request", app);
  return server;
}
