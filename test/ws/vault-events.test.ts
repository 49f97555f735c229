// Vault events produced by REST calls reach all_vaults, the owner's user_vaults and the vault's own
// channel, with content URIs for the owner only.
import { afterAll, beforeAll, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";
import { TestClient } from "./ws-client.js";

let svc: RunningService;
let alice: { key: string; accountId: string };
let bob: { key: string; accountId: string };

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  alice = await issueKey(svc);
  bob = await issueKey(svc);
});
afterAll(async () => {
  await svc.close();
});

async function post(path: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${svc.baseUrl}${path}`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBeLessThan(300);
  return (await res.json()) as Record<string, unknown>;
}

it("vault creation and release over REST arrive on the vault channels, and not on stamp channels", async () => {
  const publicWatcher = await TestClient.connect(svc.baseUrl);
  const owner = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
  const other = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": bob.key } });
  const stamps = await TestClient.connect(svc.baseUrl);
  await publicWatcher.subscribe("all_vaults");
  await owner.subscribe("user_vaults");
  await other.subscribe("user_vaults");
  await stamps.subscribe("all_stamps");

  const vault = await post("/vault/create", alice.key, {
    encrypted_key: encryptedKey,
    heartbeat_deadline: 3600,
    recipient_public_key: newRecipient().publicKey,
    content_uris: ["s3://bucket/escrow.bin"],
    allow_manual_release: true,
  });
  const vaultId = vault.id as string;
  const follower = await TestClient.connect(svc.baseUrl);
  await follower.subscribe("vault", { vault_id: vaultId });
  await post(`/vault/${vaultId}/release`, alice.key, { reason: "handing over" });

  const [created, released] = await publicWatcher.drain();
  expect(created).toMatchObject({ type: "vault_created", data: { vaultId, state: "active" } });
  expect(created?.data).not.toHaveProperty("contentUris");
  expect(released).toMatchObject({ type: "vault_released", data: { vaultId, reason: "handing over" } });
  const mine = await owner.drain();
  expect(mine.map((m) => m.type)).toEqual(["vault_created", "vault_released"]);
  expect(mine[0]?.data).toMatchObject({ contentUris: ["s3://bucket/escrow.bin"] });
  expect((await follower.drain()).map((m) => m.type)).toEqual(["vault_released"]);
  expect(await other.drain()).toEqual([]);
  expect(await stamps.drain()).toEqual([]);
  for (const c of [publicWatcher, owner, other, stamps, follower]) c.close();
});
