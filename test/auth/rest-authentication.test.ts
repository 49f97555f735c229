import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";

let svc: RunningService;
let valid: string;
let revoked: string;

beforeAll(async () => {
  // Many anonymous calls from one address: these tests are about keys, not limits.
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  valid = (await issueKey(svc)).key;
  const gone = await issueKey(svc);
  await svc.service.ctx.auth.keys.revoke(gone.keyId);
  revoked = gone.key;
});
afterAll(() => svc.close());

const call = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${svc.baseUrl}${path}`, { method, headers });

const rejectedKeys: [string, () => Record<string, string>][] = [
  ["a malformed Bearer key", () => ({ authorization: "Bearer svc_live_short" })],
  ["an unknown X-API-Key", () => ({ "x-api-key": `svc_live_${"Q".repeat(43)}` })],
  ["a revoked Bearer key", () => ({ authorization: `Bearer ${revoked}` })],
  ["a revoked X-API-Key", () => ({ "x-api-key": revoked })],
];

describe("REST authentication", () => {
  describe.each(rejectedKeys)("%s", (_name, headers) => {
    it.each([
      ["public GET /health", "/health", "GET"],
      ["public GET /verify/{id}", "/verify/stp_01JD3X7Q6V9M2K8T4R5N0B1C2D", "GET"],
      ["protected GET /vault/list", "/vault/list", "GET"],
      ["protected POST /identity", "/identity", "POST"],
    ])("answers 401 invalid_api_key with a Bearer challenge on %s", async (_where, path, method) => {
      const res = await call(path, headers(), method);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="stampd", error="invalid_token"');
      expect(await res.json()).toEqual({ detail: "API key is not valid", code: "invalid_api_key" });
    });
  });

  it.each([
    ["GET", "/vault/list"],
    ["POST", "/identity"],
    ["GET", "/vault/vlt_01JD3X7Q6V9M2K8T4R5N0B1C2D"],
    ["POST", "/vault/create"],
  ])("%s %s without a key answers 401 missing_api_key", async (method, path) => {
    const res = await call(path, {}, method);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="stampd"');
    expect(await res.json()).toEqual({
      detail: "this operation requires an API key (Authorization: Bearer or X-API-Key)",
      code: "missing_api_key",
    });
  });

  // Past authentication an operation answers whatever its handler does (501 while it has none).
  it("lets a valid key through to a key-only operation, by either header", async () => {
    expect((await call("/vault/list", { authorization: `Bearer ${valid}` })).status).not.toBe(401);
    expect((await call("/vault/list", { "x-api-key": valid })).status).not.toBe(401);
  });

  it("uses the Bearer key and ignores X-API-Key when both are sent", async () => {
    const both = await call("/vault/list", { authorization: `Bearer ${valid}`, "x-api-key": "garbage" });
    expect(both.status).not.toBe(401);
    const badBearer = await call("/vault/list", { authorization: "Bearer garbage", "x-api-key": valid });
    expect(badBearer.status).toBe(401);
  });

  it.each([
    "/health",
    "/openapi.json",
    "/docs",
    "/redoc",
    "/",
    "/verify/stp_01JD3X7Q6V9M2K8T4R5N0B1C2D",
    "/vault/fees",
    "/presets",
  ])("serves public GET %s to anonymous callers", async (path) => {
    expect((await call(path)).status).not.toBe(401);
  });

  it("refuses a bad key before reading or validating the body", async () => {
    const res = await fetch(`${svc.baseUrl}/identity`, {
      method: "POST",
      headers: { "x-api-key": "bad", "content-type": "application/json" },
      body: "{not json",
    });
    expect(res.status).toBe(401);
  });
});
