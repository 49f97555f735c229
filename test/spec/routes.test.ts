import { describe, expect, it } from "vitest";
import { operationRouter } from "../../server/rest/router.js";
import { listOperations } from "../../server/rest/spec.js";

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
}

describe("the operation router", () => {
  const routed = (operationRouter({}) as unknown as { stack: Layer[] }).stack.flatMap((layer) =>
    layer.route
      ? Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${layer.route!.path}`)
      : ["<middleware>"],
  );
  const declared = listOperations().map((op) => `${op.method.toUpperCase()} ${op.expressPath}`);

  it("routes every operation of specs/openapi.yaml", () => {
    expect(declared.filter((d) => !routed.includes(d))).toEqual([]);
  });

  it("has no route outside the spec", () => {
    expect(routed.filter((r) => !declared.includes(r))).toEqual([]);
  });

  it("orders literal segments before parameters", () => {
    const list = declared.indexOf("GET /vault/list");
    const byId = declared.indexOf("GET /vault/:id");
    expect(list).toBeGreaterThanOrEqual(0);
    expect(byId).toBeGreaterThan(list);
  });
});
