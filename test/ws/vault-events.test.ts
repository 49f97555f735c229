// Vault events produced by REST calls reach all_vaults, the owner's user_vaults and the vault's own
// channel. What the owner wrote or chose (content URIs, the free-text reasons of release and burn)
// reaches only connections of the owner's account, whatever channel matched (SECURITY.md, "Event
// privacy"); everyone else gets the vault without URIs and the reason's cause.
import { afterAll, beforeAll, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey } from "../vault/fixture.js";
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

/** Every text frame a connection receives, raw, to show that a secret is in none of them. */
function rawFrames(client: TestClient): string[] {
  const frames: string[] = [];
  client.socket.on("message", (data) => frames.push(data.toString()));
  return frames;
}

const releaseReason = "handing over to Carol, code word heron";
const burnReason = "rotated after the heron incident";

it("delivers vault events on the vault channels, free text and URIs to the owner's connections only", async () => {
  const anonymous = await TestClient.connect(svc.baseUrl);
  const owner = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
  const ownerOnPublic = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
  const other = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": bob.key } });
  const stamps = await TestClient.connect(svc.baseUrl);
  await anonymous.subscribe("all_vaults");
  await owner.subscribe("user_vaults");
  await ownerOnPublic.subscribe("all_vaults");
  await other.subscribe("user_vaults");
  await other.subscribe("all_vaults");
  await stamps.subscribe("all_stamps");
  const publicFrames = rawFrames(anonymous);
  const otherFrames = rawFrames(other);

  // Only the seed's fields: no recipient key, so the vault is owner-bound.
  const vault = await post("/vault/create", alice.key, {
    encrypted_key: encryptedKey,
    heartbeat_deadline: 172_800, // beyond the 24 h warning lead: no vault_deadline_warning
    content_uris: ["s3://bucket/escrow.bin"],
    allow_manual_release: true,
  });
  const vaultId = vault.id as string;
  const follower = await TestClient.connect(svc.baseUrl);
  const otherFollower = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": bob.key } });
  const ownerFollower = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
  for (const c of [follower, otherFollower, ownerFollower]) await c.subscribe("vault", { vault_id: vaultId });
  const followerFrames = rawFrames(follower);
  await post(`/vault/${vaultId}/release`, alice.key, { reason: releaseReason });
  await post(`/vault/${vaultId}/burn`, alice.key, { reason: burnReason });

  const redacted = [
    { type: "vault_released", data: { vaultId, reason: "owner_request" } },
    { type: "vault_burned", data: { vaultId, reason: "owner_request", cause: "owner_request" } },
  ];
  const [created, ...changes] = await anonymous.drain();
  expect(created).toMatchObject({ type: "vault_created", data: { vaultId, state: "active" } });
  expect(created?.data).not.toHaveProperty("contentUris");
  expect(changes).toMatchObject(redacted);
  const seenByBob = await other.drain();
  expect(seenByBob.map((m) => m.type)).toEqual(["vault_created", "vault_released", "vault_burned"]);
  expect(seenByBob.slice(1)).toMatchObject(redacted);
  expect(await follower.drain()).toMatchObject(redacted);
  expect(await otherFollower.drain()).toMatchObject(redacted);
  for (const frame of [...publicFrames, ...otherFrames, ...followerFrames]) {
    expect(frame).not.toContain("heron");
    expect(frame).not.toContain("escrow.bin");
  }

  const full = [
    { type: "vault_released", data: { vaultId, reason: releaseReason } },
    { type: "vault_burned", data: { vaultId, reason: burnReason, cause: "owner_request" } },
  ];
  const mine = await owner.drain();
  expect(mine.map((m) => m.type)).toEqual(["vault_created", "vault_released", "vault_burned"]);
  expect(mine[0]?.data).toMatchObject({ contentUris: ["s3://bucket/escrow.bin"] });
  expect(mine.slice(1)).toMatchObject(full);
  // The owner's own connection sees its own text on a public channel too: nothing leaks to it.
  expect((await ownerOnPublic.drain()).slice(1)).toMatchObject(full);
  expect(await ownerFollower.drain()).toMatchObject(full);
  expect(await stamps.drain()).toEqual([]);
  for (const c of [anonymous, owner, ownerOnPublic, other, stamps, follower, otherFollower, ownerFollower]) {
    c.close();
  }
});
