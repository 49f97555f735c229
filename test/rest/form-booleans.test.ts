import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

// Boolean form fields and query parameters as clients spell them (specs/openapi.yaml, Conventions).
let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

async function stamp(field: string | undefined, query = ""): Promise<{ status: number; fp?: boolean }> {
  const form = new FormData();
  form.set("file", new Blob([`doc ${Math.random()}`]), "doc.txt");
  if (field !== undefined) form.set("generate_fp", field);
  const res = await fetch(`${svc.baseUrl}/stamps${query}`, { method: "POST", body: form });
  const body = (await res.json()) as { has_fingerprint?: boolean };
  return { status: res.status, fp: body.has_fingerprint };
}

describe("generate_fp", () => {
  it.each(["true", "True", "TRUE", "1", "yes", "Yes", "on", "ON"])("form field %s means true", async (v) => {
    expect(await stamp(v)).toEqual({ status: 201, fp: true });
  });
  it.each(["false", "False", "0", "no", "off", "OFF"])("form field %s means false", async (v) => {
    expect(await stamp(v)).toEqual({ status: 201, fp: false });
  });
  it.each(["True", "yes", "1", "on"])("query parameter %s means true", async (v) => {
    expect(await stamp(undefined, `?generate_fp=${v}`)).toEqual({ status: 201, fp: true });
  });
  it.each(["maybe", "2", "y", ""])("form field %j is refused with 400", async (v) => {
    expect((await stamp(v)).status).toBe(400);
  });
});
