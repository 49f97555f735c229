import { describe, expect, it } from "vitest";
import { isExempt, weightFor } from "../../server/ratelimit/paths.js";

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

describe("isExempt (seed 8.5)", () => {
  it.each([
    ["/health", true],
    ["/ready", true],
    ["/metrics", true],
    ["/openapi.json", true],
    ["/docs", true],
    ["/docs/", true],
    ["/docs/init.js", true],
    ["/docs/assets/swagger-ui-bundle.js", true],
    ["/redoc", true],
    ["/redoc/assets/redoc.standalone.js", true],
    ["/", false],
    ["/healthz", false],
    ["/metricsx", false],
    ["/docsearch", false],
    ["/openapi.json.bak", false],
    ["/stamps", false],
  ])("%s: %s", (path, exempt) => {
    expect(isExempt(path)).toBe(exempt);
  });
});
