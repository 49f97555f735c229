import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { receiptMinter } from "../helpers/rest-calls.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "./fixture.js";

// Issue #21 as it was found, over HTTP on SQLite: after one heartbeat paid with a 30-digit amount,
// every later heartbeat and batch heartbeat of every account answered 500, also after a restart.
const dataDir = mkdtempSync(join(tmpdir(), "stampd-amounts-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function call(svc: RunningService, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

it("refuses a 30-digit receipt with 422; the largest receipts leave heartbeats and statistics working, across a restart", async () => {
  const env = { DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false" };
  const first = await startService(env);
  const mint = receiptMinter(dataDir);
  const { key } = await issueKey(first, { tier: "internal" });
  const create = () =>
    call(first, key, "POST", "/vault/create", {
      encrypted_key: encryptedKey,
      heartbeat_deadline: 86_400,
      recipient_public_key: newRecipient().publicKey,
    });
  const [a, b] = [(await create()).body.id as string, (await create()).body.id as string];
  const huge = await call(first, key, "POST", `/vault/${a}/heartbeat`, {
    fee_receipt: mint("999999999999999999999999999999.999999999999999999"),
  });
  expect(huge).toMatchObject({ status: 422, body: { code: "fee_receipt_invalid" } });
  for (let i = 0; i < 2; i++) {
    const paid = await call(first, key, "POST", `/vault/${a}/heartbeat`, {
      fee_receipt: mint("999999999999999.999999999999999999"),
    });
    expect(paid.status).toBe(200);
  }
  await first.close();

  const second = await startService(env);
  try {
    const heartbeat = await call(second, key, "POST", `/vault/${b}/heartbeat`, { fee_receipt: mint("0.50") });
    expect(heartbeat.status).toBe(200);
    const batch = await call(second, key, "POST", "/vault/batch-heartbeat", {
      vault_ids: [a, b],
      fee_receipt: mint("0.90"),
    });
    expect(batch).toMatchObject({ status: 200, body: { renewed: 2 } });
    const stats = await call(second, key, "GET", "/explorer/api/stats");
    expect(stats).toMatchObject({
      status: 200,
      body: { total_heartbeats: 5, total_fees_collected: "2000000000000001.399999999999999998" },
    });
    const dashboard = await call(second, key, "GET", "/dashboard/stats");
    expect(dashboard.status).toBe(200);
    expect(JSON.stringify(dashboard.body)).toContain("2000000000000001.399999999999999998");
  } finally {
    await second.close();
  }
});
