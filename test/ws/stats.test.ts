// GET /ws/stats over REST: connections, subscriptions per channel, messages in and out.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { batchProgress, ids, publish } from "./events.js";
import { TestClient } from "./ws-client.js";

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(async () => {
  await svc.close();
});

const stats = async () => {
  const res = await fetch(`${svc.baseUrl}/ws/stats`);
  expect(res.status).toBe(200);
  return res.json();
};

it("counts connections, subscriptions per channel and messages both ways", async () => {
  expect(await stats()).toEqual({
    connections: 0,
    subscriptions: {
      all_stamps: 0,
      user_stamps: 0,
      stamp: 0,
      batch: 0,
      all_vaults: 0,
      user_vaults: 0,
      vault: 0,
    },
    messages_in: 0,
    messages_out: 0,
  });
  const { key } = await issueKey(svc);
  const a = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": key } });
  const b = await TestClient.connect(svc.baseUrl);
  await a.subscribe("user_vaults");
  await a.subscribe("batch", { batch_id: ids.batch });
  await b.subscribe("batch", { batch_id: ids.batch });
  await b.subscribe("vault", { vault_id: ids.vaultA });
  publish(svc.service.ctx.events, [batchProgress(ids.batch)]);
  await a.drain();
  await b.drain();
  // In: 4 subscribes + 2 drain pings. Out: their 6 replies + the event to each connection.
  expect(await stats()).toEqual({
    connections: 2,
    subscriptions: {
      all_stamps: 0,
      user_stamps: 0,
      stamp: 0,
      batch: 2,
      all_vaults: 0,
      user_vaults: 1,
      vault: 1,
    },
    messages_in: 6,
    messages_out: 8,
  });
  b.close();
  // The server counts the connection until its socket has closed, which the client may see first.
  await vi.waitFor(async () => expect((await stats()).connections).toBe(1));
  expect((await stats()).subscriptions).toMatchObject({ batch: 1, vault: 0, user_vaults: 1 });
  a.close();
});
