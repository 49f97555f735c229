import { describe, expect, it } from "vitest";
import { requestClass, weightFor } from "../../server/ratelimit/paths.js";

describe("weightFor: the longest listed prefix on whole path segments (specs/openapi.yaml)", () => {
  it.each([
    ["/stamps", 2.0],
    ["/stamps/stp_01JD4A2S7K9X3M5N8P0Q1R2T4V", 2.0],
    ["/stamps/stp_01JD4A2S7K9X3M5N8P0Q1R2T4V/verify", 2.0],
    ["/fingerprint", 1.5],
    ["/fingerprint/compare", 1.5],
    ["/fingerprint/stp_01JD4A2S7K9X3M5N8P0Q1R2T4V/shadow/7", 1.5],
    ["/verify", 1.0],
    ["/verify/stp_01JD4A2S7K9X3M5N8P0Q1R2T4V", 1.0],
    ["/identity", 1.0],
    ["/identity/0123456789abcdef", 1.0],
    ["/vault/create", 1.0],
    ["/explorer/api/vaults", 0.5],
    ["/presets", 0.1],
    ["/presets/archival", 0.1],
    ["/health", 0.1],
    // Checkpoints, tiles and the TSA's certificate cost what /health would; proofs do not.
    ["/log", 0.1],
    ["/log/checkpoint", 0.1],
    ["/log/tiles/checkpoint", 0.1],
    ["/log/tiles/tile/0/x001/234", 0.1],
    ["/tsa/ca.pem", 0.1],
    ["/log/inclusion", 1.0],
    ["/log/consistency", 1.0],
    ["/logs", 1.0],
    ["/hash", 1.0],
    ["/ws/stats", 1.0],
    ["/", 1.0],
    // Whole segments only: these merely start with the same letters.
    ["/stampsx", 1.0],
    ["/presetsarchive", 1.0],
    // The seed's plural spellings are not paths stampd serves.
    ["/fingerprints", 1.0],
    ["/identities", 1.0],
    // Express matches routes case-insensitively, so the weight must too.
    ["/STAMPS", 2.0],
    ["/Presets/casual", 0.1],
  ])("%s costs %d", (path, weight) => {
    expect(weightFor(path)).toBe(weight);
  });
});

describe("requestClass", () => {
  const GET = (path: string, fetchSite?: string) => ({ method: "GET", path, fetchSite });
  it.each([
    ["/health", GET("/health"), "exempt"],
    ["/ready", GET("/ready"), "exempt"],
    ["/metrics", GET("/metrics"), "exempt"],
    ["/openapi.json", GET("/openapi.json"), "exempt"],
    ["/docs", GET("/docs"), "exempt"],
    ["/docs/", GET("/docs/"), "exempt"],
    ["/docs/init.js", GET("/docs/init.js"), "exempt"],
    ["/docs/assets/swagger-ui-bundle.js", GET("/docs/assets/swagger-ui-bundle.js"), "exempt"],
    ["/redoc", GET("/redoc"), "exempt"],
    ["/redoc/assets/redoc.standalone.js", GET("/redoc/assets/redoc.standalone.js"), "exempt"],
    ["/pages/assets/pages.css", GET("/pages/assets/pages.css"), "exempt"],
    ["/ (the landing page)", GET("/"), "page"],
    ["POST /", { method: "POST", path: "/" }, "api"],
    ["/healthz", GET("/healthz"), "api"],
    ["/metricsx", GET("/metricsx"), "api"],
    ["/docsearch", GET("/docsearch"), "api"],
    ["/openapi.json.bak", GET("/openapi.json.bak"), "api"],
    ["/stamps", GET("/stamps"), "api"],
    ["GET /verify/{id}", GET("/verify/stp_01JD3X7Q6V9M2K8T4R5N0B1C2D"), "page"],
    ["HEAD /Verify/{id}", { method: "HEAD", path: "/Verify/x" }, "page"],
    ["POST /verify", { method: "POST", path: "/verify" }, "api"],
    ["POST /verify/{id}", { method: "POST", path: "/verify/x" }, "api"],
    ["GET /verify/{id}/more", GET("/verify/x/more"), "api"],
    ["GET /dashboard", GET("/dashboard"), "page"],
    ["GET /dashboard/stats", GET("/dashboard/stats"), "page"],
    ["GET /log from the service's own page", GET("/log", "same-origin"), "page"],
    ["GET /ws from the service's own page", GET("/ws", "same-origin"), "page"],
    ["GET /explorer", GET("/explorer"), "page"],
    ["GET /explorer/api/vaults from the explorer page", GET("/explorer/api/vaults", "same-origin"), "page"],
    ["GET /explorer/api/stats from the explorer page", GET("/explorer/api/stats", "same-origin"), "page"],
    ["GET /explorer/api/vaults from a program", GET("/explorer/api/vaults"), "api"],
    ["GET /log from another site", GET("/log", "cross-site"), "api"],
    ["GET /log from a program", GET("/log"), "api"],
    ["GET /stamps/{id} from the service's own page", GET("/stamps/x", "same-origin"), "api"],
  ] as const)("%s: %s", (_name, request, kind) => {
    expect(requestClass(request)).toBe(kind);
  });
});
