import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "../../gen/rest/routes.js";
import { type RunningService, startService } from "../helpers/service.js";

// HEAD wherever GET is served (RFC 9110 section 9.3.2: `curl -I`, uptime monitors), and a 405 that
// says which methods the path takes (section 15.5.6).
let svc: RunningService;
let stampId: string;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  const form = new FormData();
  form.set("file", new Blob(["head"]), "head.txt");
  const res = await fetch(`${svc.baseUrl}/stamps`, { method: "POST", body: form });
  stampId = ((await res.json()) as { stamp_id: string }).stamp_id;
});
afterAll(() => svc.close());

// Paths a GET answers without parameters or with a stamp's id; the rest need ids of other kinds.
const samples: Record<string, string> = {
  "/stamps/{stamp_id}": "/stamps/{id}",
  "/stamps/{stamp_id}/proof": "/stamps/{id}/proof",
  "/verify/{stamp_id}": "/verify/{id}",
};
const paths = routes
  .filter((r) => r.method === "get")
  .map((r) => (r.params.length === 0 ? r.path : samples[r.path]))
  .filter((p): p is string => p !== undefined);

describe("HEAD", () => {
  it.each(paths)("HEAD %s answers as GET does, without a body", async (template) => {
    const path = template.replace("{id}", stampId);
    const get = await fetch(`${svc.baseUrl}${path}`);
    await get.arrayBuffer();
    const head = await fetch(`${svc.baseUrl}${path}`, { method: "HEAD" });
    expect(head.status).toBe(get.status);
    expect(head.status).not.toBe(405);
    expect(head.headers.get("content-type")).toBe(get.headers.get("content-type"));
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });
});

describe("405", () => {
  it.each([
    ["DELETE", "/stamps", "POST, GET, HEAD"],
    ["PUT", "/health", "GET, HEAD"],
    ["GET", "/hash", "POST"],
  ])("%s %s answers 405 with Allow: %s", async (method, path, allow) => {
    const res = await fetch(`${svc.baseUrl}${path}`, { method });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")?.split(", ").sort()).toEqual(allow.split(", ").sort());
    expect(await res.json()).toEqual({ detail: "method not allowed" });
  });
});
