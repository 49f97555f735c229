import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { startService } from "../helpers/service.js";
import { scrape } from "./scrape.js";

describe("GET /metrics on the REST port (the default)", () => {
  it("is never rate limited nor charged, and needs no key", async () => {
    const svc = await startService();
    try {
      // Anonymous, burst 5 and cost 1.0 unless exempt: 20 scrapes would run dry fifteen times over.
      for (let i = 0; i < 20; i++) {
        const res = await fetch(`${svc.baseUrl}/metrics`);
        expect(res.status).toBe(200);
        // Labelled with the caller's figures, as every response is, and nothing taken.
        expect(res.headers.get("x-ratelimit-remaining")).toBe("5");
        await res.arrayBuffer();
      }
      const after = await scrape(`${svc.baseUrl}/metrics`);
      expect(after.value("stampd_rate_limit_decisions_total")).toBe(0);
      expect(after.value("stampd_http_requests_total", { route: "/metrics", status: "200" })).toBe(20);
    } finally {
      await svc.close();
    }
  });
});

describe("METRICS_ENABLED=false", () => {
  it("answers 404 like an unknown path, and opens no metrics listener", async () => {
    const svc = await startService({ METRICS_ENABLED: "false" });
    try {
      const res = await fetch(`${svc.baseUrl}/metrics`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ detail: "not found" });
      expect(svc.service.metricsServer).toBeUndefined();
    } finally {
      await svc.close();
    }
  });
});

describe("METRICS_PORT", () => {
  it("serves /metrics on a listener of its own, and not on the REST port", async () => {
    const svc = await startService({ METRICS_PORT: "0" });
    try {
      expect(svc.metricsUrl).toBeDefined();
      await fetch(`${svc.baseUrl}/presets`);
      const own = await scrape(`${svc.metricsUrl}/metrics`);
      expect(own.value("stampd_http_requests_total", { route: "/presets", status: "200" })).toBe(1);
      expect((await fetch(`${svc.baseUrl}/metrics`)).status).toBe(404);
      // The metrics listener serves nothing else.
      expect((await fetch(`${svc.metricsUrl}/health`)).status).toBe(404);
      expect((await fetch(`${svc.metricsUrl}/metrics`, { method: "POST" })).status).toBe(404);
    } finally {
      await svc.close();
    }
    expect(svc.service.metricsServer!.listening).toBe(false);
  });

  it("keeps the REST listener's limits: headers over MAX_HEADER_BYTES get 431, and MAX_CONNECTIONS holds", async () => {
    const svc = await startService({ METRICS_PORT: "0", MAX_HEADER_BYTES: "2048", MAX_CONNECTIONS: "7" });
    try {
      const big = await fetch(`${svc.metricsUrl}/metrics`, { headers: { "x-padding": "a".repeat(4096) } });
      expect(big.status).toBe(431);
      expect((await fetch(`${svc.metricsUrl}/metrics`)).status).toBe(200);
      expect(svc.service.metricsServer!.maxConnections).toBe(7);
    } finally {
      await svc.close();
    }
  });

  it("is validated like every port", () => {
    expect(loadConfig({ METRICS_PORT: "9464", METRICS_HOST: "127.0.0.1" })).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_HOST: "127.0.0.1",
    });
    expect(() => loadConfig({ METRICS_PORT: "70000" })).toThrow(/^invalid configuration: METRICS_PORT: /);
    expect(() => loadConfig({ METRICS_ENABLED: "maybe" })).toThrow(
      /^invalid configuration: METRICS_ENABLED: /,
    );
    expect(() => loadConfig({ METRICS_PORT: "8080" })).toThrow(
      "invalid configuration: METRICS_PORT: must differ from PORT and GRPC_PORT (it is a listener of its own)",
    );
  });
});
