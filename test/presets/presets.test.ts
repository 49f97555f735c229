import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

// The table of docs/design.md, in the order GET /presets lists them.
const table = [
  ["casual", ["log"], 2, false],
  ["standard", ["log", "rfc3161"], 5, false],
  ["archival", ["log", "rfc3161", "bitcoin"], 8, true],
  ["maximum", ["log", "rfc3161", "bitcoin", "ethereum"], 12, true],
] as const;

it("GET /presets lists the four presets of the design, in order", async () => {
  const res = await fetch(`${svc.baseUrl}/presets`);
  expect(res.status).toBe(200);
  const presets = await res.json();
  expect(presets.map((p: { name: string }) => p.name)).toEqual(table.map(([name]) => name));
  for (const [i, [name, anchors, trust_threshold, generate_fp]] of table.entries()) {
    expect(presets[i]).toMatchObject({
      name,
      anchors,
      trust_threshold,
      generate_fp,
      storage_mode: "local",
      encryption: "none",
    });
  }
});

it.each(table)("GET /presets/%s", async (name, anchors) => {
  const res = await fetch(`${svc.baseUrl}/presets/${name}`);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ name, anchors });
});

it("GET /presets/{name} answers 404 preset_not_found for a well-formed unknown name, 400 for a malformed one", async () => {
  const res = await fetch(`${svc.baseUrl}/presets/gold`);
  expect(res.status).toBe(404);
  expect(await res.json()).toEqual({
    detail: 'preset "gold" not found; presets: casual, standard, archival, maximum',
    code: "preset_not_found",
  });
  expect((await fetch(`${svc.baseUrl}/presets/Not%20A%20Name`)).status).toBe(400);
});
