import express from "express";
import { describe, expect, it } from "vitest";
import { listOperations } from "../../server/contract/openapi.js";
import { matchRequest } from "../../server/rest/operation-matcher.js";

// A request path for a spec path, each parameter given a value no literal segment has.
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, "x1");

// The operation an express router would run, or its 400 thrown, as a router calls next(err).
function match(method: string, path: string) {
  const found = matchRequest(method, path);
  if (found.undecodable) throw found.undecodable;
  return found.routed && { operation: found.routed.route, params: found.routed.params };
}

describe("the operation matcher (which operations need a key, require-key.ts)", () => {
  const operations = listOperations();

  it("routes every operation of specs/openapi.yaml, with its path parameters", () => {
    for (const op of operations) {
      const found = match(op.method.toUpperCase(), concrete(op.path));
      expect(found?.operation.operationId, `${op.method} ${op.path}`).toBe(op.operationId);
      for (const name of Object.keys(found!.params)) expect(found!.params[name]).toBe("x1");
    }
  });

  it("matches nothing outside the spec", () => {
    expect(match("GET", "/no/such/path")).toBeUndefined();
    expect(match("DELETE", "/health")).toBeUndefined();
  });

  it("orders literal segments before parameters", () => {
    const names = operations.map((op) => `${op.method.toUpperCase()} ${op.expressPath}`);
    expect(names.indexOf("GET /vault/list")).toBeGreaterThanOrEqual(0);
    expect(names.indexOf("GET /vault/:id")).toBeGreaterThan(names.indexOf("GET /vault/list"));
    expect(match("GET", "/vault/list")?.operation.path).toBe("/vault/list");
  });

  it.each([
    ["case-insensitively", "GET", "/STAMPS/stp_1", "/stamps/{stamp_id}"],
    ["with a trailing slash", "GET", "/stamps/stp_1/", "/stamps/{stamp_id}"],
    ["HEAD as GET", "HEAD", "/stamps/stp_1", "/stamps/{stamp_id}"],
  ])("matches as express routes do: %s", (_name, method, path, want) => {
    expect(match(method, path)?.operation.path).toBe(want);
  });

  it("percent-decodes parameters, and refuses one that cannot be decoded with the router's 400", () => {
    expect(match("GET", "/stamps/a%2Fb")?.params).toEqual({ stamp_id: "a/b" });
    expect(() => match("GET", "/stamps/%E0%A4%A")).toThrow(
      expect.objectContaining({ status: 400, message: "Failed to decode param '%E0%A4%A'" }),
    );
  });

  it("decides as an express router with one route per operation did, on odd paths too", async () => {
    const router = express.Router();
    for (const op of operations) {
      router[op.method](op.expressPath, (req, _res, next) =>
        next({ routed: op.operationId, params: { ...req.params } }),
      );
    }
    const viaExpress = (method: string, url: string) =>
      new Promise<unknown>((resolve) => {
        const req = { method, url, headers: {} };
        router(req as never, {} as never, (outcome?: unknown) =>
          resolve(
            outcome instanceof Error ? { error: (outcome as Error & { status?: number }).status } : outcome,
          ),
        );
      });
    const viaMatcher = (method: string, url: string) => {
      try {
        const found = match(method, url.split("?")[0]!);
        return found && { routed: found.operation.operationId, params: found.params };
      } catch (err) {
        return { error: (err as { status?: number }).status };
      }
    };
    const paths = operations.flatMap((op) => {
      const path = concrete(op.path);
      return [
        path,
        path.toUpperCase(),
        `${path}/`,
        `${path}//`,
        `${path}/more`,
        `${path}?q=1`,
        op.path.replace(/\{[^}]+\}/g, "a%2Fb%20c"),
        op.path.replace(/\{[^}]+\}/g, "%E0%A4%A"),
        op.path.replace(/\{[^}]+\}/g, ""),
      ];
    });
    for (const method of ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]) {
      for (const url of paths)
        expect(viaMatcher(method, url), `${method} ${url}`).toEqual(await viaExpress(method, url));
    }
  });
});
