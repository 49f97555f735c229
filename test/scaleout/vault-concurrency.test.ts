import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { receiptMinter } from "../helpers/rest-calls.js";
import type { RunningService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";
import { Cluster } from "./cluster.js";

// Issue #21: parallel writes to one vault on PostgreSQL answered 500 ("vault kept changing
// concurrently; giving up after 8 attempts"). Two instances on one schema, every request sent at
// once, half to each: no 5xx, and every receipt counted exactly once.
let cluster: Cluster;
let instances: RunningService[];
let key: string;
let mint: (amount?: string) => string;
const recipient = newRecipient();

beforeAll(async () => {
  cluster = await Cluster.start(2);
  instances = cluster.instances;
  ({ key } = await issueKey(instances[0]!, { tier: "internal" }));
  mint = receiptMinter(cluster.instances[0]!.dataDir);
});
afterAll(() => cluster?.close());

async function call(i: number, method: string, path: string, body?: unknown) {
  const res = await fetch(`${instances[i % instances.length]!.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function createVault(allowManualRelease = false): Promise<string> {
  const created = await call(0, "POST", "/vault/create", {
    encrypted_key: encryptedKey,
    heartbeat_deadline: 86_400,
    recipient_public_key: recipient.publicKey,
    allow_manual_release: allowManualRelease,
  });
  expect(created.status).toBe(201);
  return created.body.id as string;
}

const statuses = (replies: { status: number }[]) => replies.map((r) => r.status);

describe("parallel writes to one vault on two instances (PostgreSQL)", () => {
  it("100 heartbeats with distinct receipts: all 200, each counted once in the count and the fees", async () => {
    const before = await call(0, "GET", "/explorer/api/stats");
    const vaultId = await createVault();
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        call(i, "POST", `/vault/${vaultId}/heartbeat`, { fee_receipt: mint("0.50") }),
      ),
    );
    expect(statuses(replies)).toEqual(Array(100).fill(200));
    expect((await call(1, "GET", `/vault/${vaultId}`)).body.heartbeat_count).toBe(100);
    const after = await call(1, "GET", "/explorer/api/stats");
    expect(after.body.total_heartbeats).toBe((before.body.total_heartbeats as number) + 100);
    const paid = Number(after.body.total_fees_collected) - Number(before.body.total_fees_collected);
    expect(paid).toBe(50);
  });

  it("overlapping batch heartbeats in any order: all 200, every renewal counted", async () => {
    const vaults = await Promise.all(Array.from({ length: 6 }, () => createVault()));
    // Each batch names 4 of the 6 vaults, rotated and reversed, so batches overlap in both orders.
    const batches = Array.from({ length: 24 }, (_, i) => {
      const ids = Array.from({ length: 4 }, (_, j) => vaults[(i + j) % vaults.length]!);
      return i % 2 ? ids.reverse() : ids;
    });
    const replies = await Promise.all(
      batches.map((ids, i) =>
        call(i, "POST", "/vault/batch-heartbeat", { vault_ids: ids, fee_receipt: mint("1.80") }),
      ),
    );
    expect(statuses(replies)).toEqual(Array(24).fill(200));
    expect(replies.every((r) => r.body.renewed === 4)).toBe(true);
    const counts = await Promise.all(vaults.map((id) => call(0, "GET", `/vault/${id}`)));
    expect(counts.reduce((sum, r) => sum + (r.body.heartbeat_count as number), 0)).toBe(24 * 4);
  });

  it("30 retrieves with distinct proofs of a released vault: all 200", async () => {
    const vaultId = await createVault(true);
    expect((await call(0, "POST", `/vault/${vaultId}/release`, { reason: "test" })).status).toBe(200);
    const now = Date.now();
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => {
        const proof = recipient.prove(vaultId, new Date(now - i * 1000).toISOString());
        return call(i, "POST", `/vault/${vaultId}/retrieve`, {
          proof_of_identity: proof.proofOfIdentity,
          signed_at: proof.signedAt,
        });
      }),
    );
    expect(statuses(replies)).toEqual(Array(30).fill(200));
    expect(new Set(replies.map((r) => r.body.encrypted_key))).toEqual(new Set([encryptedKey]));
  });
});
