// Events reach WebSocket subscribers whatever produced them: a gRPC call, or the vault scheduler
// acting on its own when a deadline approaches and passes.
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, expect, it } from "vitest";
import { StampService } from "../../gen/proto/svc/v1/stamp_pb.js";
import { ManualClock } from "../../server/clock.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";
import { TestClient } from "./ws-client.js";

const clock = new ManualClock("2026-03-01T00:00:00.000Z");
let svc: RunningService;

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false", VAULT_WARNING_LEAD_SECONDS: "3600" }, { clock });
});
afterAll(() => svc.close());

it("a stamp created over gRPC arrives on all_stamps and on its own stamp channel", async () => {
  const watcher = await TestClient.connect(svc.baseUrl);
  await watcher.subscribe("all_stamps");
  const vaults = await TestClient.connect(svc.baseUrl);
  await vaults.subscribe("all_vaults");

  const grpc = createClient(StampService, createGrpcTransport({ baseUrl: svc.grpcUrl }));
  const { stamp } = await grpc.createStamp({
    contentHash: `sha256:${"ab".repeat(32)}`,
    metadata: { source: "grpc" },
  });

  const events = await watcher.drain();
  expect(events).toHaveLength(1);
  expect(events[0]).toMatchObject({
    type: "stamp_created",
    data: { id: stamp?.id, contentHash: `sha256:${"ab".repeat(32)}`, metadata: { source: "grpc" } },
  });
  expect(await vaults.drain()).toEqual([]);
});

it("the scheduler's deadline warning and expiry arrive on the vault's channels, once each", async () => {
  const owner = await issueKey(svc);
  const res = await fetch(`${svc.baseUrl}/vault/create`, {
    method: "POST",
    headers: { "X-API-Key": owner.key, "Content-Type": "application/json" },
    body: JSON.stringify({
      encrypted_key: encryptedKey,
      heartbeat_deadline: 7200,
      recipient_public_key: newRecipient().publicKey,
    }),
  });
  expect(res.status).toBe(201);
  const vaultId = ((await res.json()) as { id: string }).id;
  const follower = await TestClient.connect(svc.baseUrl);
  await follower.subscribe("vault", { vault_id: vaultId });
  const stamps = await TestClient.connect(svc.baseUrl);
  await stamps.subscribe("all_stamps");

  clock.advance(3700 * 1000);
  await svc.service.vault.scheduler.tick();
  await svc.service.vault.scheduler.tick();
  const warned = await follower.drain();
  expect(warned.map((e) => e.type)).toEqual(["vault_deadline_warning"]);
  expect(warned[0]).toMatchObject({ data: { vaultId, state: "active", hoursRemaining: 0 } });

  clock.advance(3600 * 1000);
  await svc.service.vault.scheduler.tick();
  const expired = await follower.drain();
  expect(expired.map((e) => e.type)).toEqual(["vault_expired"]);
  expect(expired[0]).toMatchObject({ data: { vaultId } });
  expect(await stamps.drain()).toEqual([]);
});
