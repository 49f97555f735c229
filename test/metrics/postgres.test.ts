import { afterAll, beforeAll, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createSchema, type TestSchema } from "../store/postgres.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";
import { scrape } from "./scrape.js";

// The gauges read from the store at scrape time, on PostgreSQL (series.test.ts covers SQLite).
let schema: TestSchema;
let svc: RunningService;

beforeAll(async () => {
  schema = await createSchema();
  svc = await startService({ DATABASE_URL: schema.url, RATE_LIMIT_ENABLED: "false" });
});
afterAll(async () => {
  await svc?.close();
  await schema?.drop();
});

it("counts vaults by state and pending anchors by type in PostgreSQL, and times its queries", async () => {
  const { key } = await issueKey(svc);
  const headers = { authorization: `Bearer ${key}` };
  const form = new FormData();
  form.append("preset", "standard"); // log and rfc3161; without TSA_URL rfc3161 stays pending
  form.append("file", new Blob(["on postgres"]), "doc.txt");
  expect((await fetch(`${svc.baseUrl}/stamps`, { method: "POST", headers, body: form })).status).toBe(201);
  await svc.service.proofs.pipeline.tick();
  const vault = await fetch(`${svc.baseUrl}/vault/create`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify({
      encrypted_key: encryptedKey,
      heartbeat_deadline: 86_400,
      recipient_public_key: newRecipient().publicKey,
    }),
  });
  expect(vault.status).toBe(201);

  const m = await scrape(`${svc.baseUrl}/metrics`);
  expect(m.value("stampd_anchors_pending", { type: "rfc3161" })).toBe(1);
  expect(m.value("stampd_anchors_pending", { type: "log" })).toBe(0);
  expect(m.value("stampd_anchors_settled_total", { type: "log", outcome: "confirmed" })).toBe(1);
  expect(m.value("stampd_vaults", { state: "active" })).toBe(1);
  expect(m.value("stampd_vaults", { state: "expired" })).toBe(0);
  expect(
    m.value("stampd_store_query_duration_seconds_count", { repository: "vaults", method: "insert" }),
  ).toBe(1);
});
