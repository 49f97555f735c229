import type { components } from "../../../gen/openapi/types.js";
import type { RequestOptions } from "../internal/request.js";
import { APIResource } from "../internal/resource.js";

type Schemas = components["schemas"];

/** The service itself: root object, health, readiness, metrics, its reference pages and WebSocket statistics. */
export class Service extends APIResource {
  /**
   * `GET /`: name and version of the service and the paths of its reference pages. Asked for as
   * JSON: a client preferring HTML (a browser) gets the landing page instead.
   *
   * @example
   * const { service, version } = await client.service.root();
   */
  root(options?: RequestOptions): Promise<Schemas["RootResponse"]> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/", { ...init, headers: { ...init.headers, accept: "application/json" } }),
      options,
    ) as Promise<Schemas["RootResponse"]>;
  }

  /**
   * `GET /health`: `ok` or `degraded`. A service that is `down` answers 503, which throws an
   * `InternalServerError` whose `body` is the health report.
   *
   * @example
   * const { status } = await client.service.health();
   */
  health(options?: RequestOptions): Promise<Schemas["HealthResponse"]> {
    return this.core.request("GET", (init) => this.http.GET("/health", init), options);
  }

  /**
   * `GET /ready`: `ready`. A service that is starting or shutting down answers 503, which throws an
   * `InternalServerError` whose `body` says which (`starting`, `stopping`).
   *
   * @example
   * await client.service.ready(); // throws an APIError (503) while not ready
   */
  ready(options?: RequestOptions): Promise<Schemas["ReadyResponse"]> {
    return this.core.request("GET", (init) => this.http.GET("/ready", init), options);
  }

  /**
   * `GET /metrics`: the Prometheus text exposition of the service's metrics.
   *
   * @example
   * const text = await client.service.metrics();
   * console.log(text.split("\n").filter((l) => l.startsWith("stampd_stamps")));
   */
  metrics(options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/metrics", { ...init, parseAs: "text" }),
      options,
    );
  }

  /**
   * `GET /openapi.json`: the OpenAPI 3.1 description of the REST interface.
   *
   * @example
   * const spec = await client.service.openapi();
   * console.log(Object.keys(spec.paths));
   */
  openapi(options?: RequestOptions) {
    return this.core.request("GET", (init) => this.http.GET("/openapi.json", init), options);
  }

  /**
   * `GET /docs`: the Swagger UI reference page, as HTML text.
   *
   * @example
   * const html = await client.service.docsPage();
   */
  docsPage(options?: RequestOptions): Promise<string> {
    return this.core.request("GET", (init) => this.http.GET("/docs", { ...init, parseAs: "text" }), options);
  }

  /**
   * `GET /redoc`: the Redoc reference page, as HTML text.
   *
   * @example
   * const html = await client.service.redocPage();
   */
  redocPage(options?: RequestOptions): Promise<string> {
    return this.core.request("GET", (init) => this.http.GET("/redoc", { ...init, parseAs: "text" }), options);
  }

  /**
   * `GET /dashboard`: the live dashboard page, as HTML text.
   *
   * @example
   * const html = await client.service.dashboardPage();
   */
  dashboardPage(options?: RequestOptions): Promise<string> {
    return this.core.request(
      "GET",
      (init) => this.http.GET("/dashboard", { ...init, parseAs: "text" }),
      options,
    );
  }

  /**
   * `GET /dashboard/stats`: the dashboard's counts (stamps per minute, vaults by state, fees).
   *
   * @example
   * const stats = await client.service.dashboardStats();
   * console.log(stats.stamps.total);
   */
  dashboardStats(options?: RequestOptions): Promise<Schemas["DashboardStats"]> {
    return this.core.request("GET", (init) => this.http.GET("/dashboard/stats", init), options);
  }

  /**
   * `GET /ws/stats`: connections, subscriptions per channel and message counts of `/ws`.
   *
   * @example
   * const { connections } = await client.service.wsStats();
   */
  wsStats(options?: RequestOptions): Promise<Schemas["WsStats"]> {
    return this.core.request("GET", (init) => this.http.GET("/ws/stats", init), options);
  }
}
