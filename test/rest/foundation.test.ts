import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

let svc: RunningService;
beforeAll(async () => {
  // One anonymous client makes all these requests; its 5-request burst is tested in test/ratelimit.
  svc = await startService({ CORS_ORIGINS: "*", RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

const get = (path: string, init?: RequestInit) => fetch(svc.baseUrl + path, init);

describe("service endpoints", () => {
  it("GET /health reports ok with a semantic version and a timestamp", async () => {
    const res = await get("/health");
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.status).toBe("ok");
    expect(body.version).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?$/);
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false);
  });

  it("GET / names the docs, health and dashboard paths", async () => {
    const body = await (await get("/")).json();
    expect(body).toMatchObject({ name: "stampd", docs: "/docs", health: "/health", dashboard: "/dashboard" });
  });

  it("GET /openapi.json serves the spec as JSON", async () => {
    const res = await get("/openapi.json");
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    const spec = await res.json();
    expect(spec.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(spec.paths)).toContain("/stamps");
  });

  it.each([
    ["/docs", "/docs/assets/swagger-ui-bundle.js"],
    ["/redoc", "/redoc/assets/redoc.standalone.js"],
  ])("%s is an HTML page whose assets are served locally", async (page, asset) => {
    const res = await get(page);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain(asset);
    expect(html).not.toMatch(/https?:\/\/(?!localhost)/);
    const js = await get(asset);
    expect(js.status).toBe(200);
    expect((await js.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
  });
});

describe("errors", () => {
  it("an unknown route answers 404 {detail}", async () => {
    const res = await get("/no/such/route");
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: "not found" });
  });

  it("a malformed JSON body answers 400 {detail}", async () => {
    const res = await get("/fingerprint/compare", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(400);
    expect((await res.json()).detail).toBe("malformed JSON body");
  });

  it("a JSON body over MAX_JSON_BYTES answers 413 {detail}", async () => {
    // Not a /fingerprint route: those take bodies up to MAX_FINGERPRINT_JSON_BYTES.
    const res = await get("/verify", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ stamp_json: { pad: "x".repeat(svc.config.MAX_JSON_BYTES) } }),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).detail).toBe("request body too large");
  });

  it("a request failing schema validation answers 400 with field errors", async () => {
    const res = await get("/fingerprint/compare", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ fingerprint1: {} }),
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(typeof body.detail).toBe("string");
    expect(body.errors?.length).toBeGreaterThan(0);
  });
});

describe("cross-cutting behaviour", () => {
  it("echoes a plain X-Request-Id and replaces an unsafe one", async () => {
    const mine = await get("/health", { headers: { "x-request-id": "abc-123" } });
    expect(mine.headers.get("x-request-id")).toBe("abc-123");
    const unsafe = await get("/health", { headers: { "x-request-id": "a b\tc" } });
    expect(unsafe.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("allows any origin by default", async () => {
    const res = await get("/health", { headers: { origin: "https://example.org" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("limits origins when CORS_ORIGINS lists them", async () => {
    const limited = await startService({ CORS_ORIGINS: "https://app.example" });
    try {
      const ok = await fetch(`${limited.baseUrl}/health`, { headers: { origin: "https://app.example" } });
      expect(ok.headers.get("access-control-allow-origin")).toBe("https://app.example");
      const other = await fetch(`${limited.baseUrl}/health`, { headers: { origin: "https://evil.example" } });
      expect(other.headers.get("access-control-allow-origin")).toBeNull();
    } finally {
      await limited.close();
    }
  });
});
