// Every channel and filter, fed by direct publications on ctx.events (standing in for the stamps
// domain and the vault scheduler): each event arrives on its channels and on no other.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { batchProgress, ids, label, publish as publishOn, stampEvents, vaultEvents } from "./events.js";
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

const publish = (events: AnyDomainEvent[]) => publishOn(svc.service.ctx.events, events);

/** Alice's stamp A and vault A, Bob's stamp B and vault B, one batch. */
function everything(): AnyDomainEvent[] {
  return [
    ...stampEvents(ids.stampA, alice.accountId),
    ...stampEvents(ids.stampB, bob.accountId),
    ...vaultEvents(ids.vaultA, alice.accountId),
    ...vaultEvents(ids.vaultB, bob.accountId),
    batchProgress(ids.batch),
  ];
}

const stampTypes = (stampId: string) =>
  ["stamp_created", "stamp_confirmed", "stamp_anchored"].map((t) => `${t}:${stampId}`);

const vaultTypes = (vaultId: string) =>
  [
    "vault_created",
    "vault_heartbeat",
    "vault_released",
    "vault_expired",
    "vault_burned",
    "vault_deadline_warning",
  ].map((t) => `${t}:${vaultId}`);

const cases: [string, { channel: string; filters?: Record<string, string>; want: string[] }][] = [
  [
    "all_stamps: every stamp event",
    {
      channel: "all_stamps",
      want: [...stampTypes(ids.stampA), ...stampTypes(ids.stampB)],
    },
  ],
  ["user_stamps: the caller's stamps only", { channel: "user_stamps", want: stampTypes(ids.stampA) }],
  [
    "stamp: the later events of one stamp",
    {
      channel: "stamp",
      filters: { stamp_id: ids.stampB },
      want: [`stamp_confirmed:${ids.stampB}`, `stamp_anchored:${ids.stampB}`],
    },
  ],
  [
    "batch: progress of one batch",
    { channel: "batch", filters: { batch_id: ids.batch }, want: [`batch_progress:${ids.batch}`] },
  ],
  [
    "all_vaults: every vault event",
    { channel: "all_vaults", want: [...vaultTypes(ids.vaultA), ...vaultTypes(ids.vaultB)] },
  ],
  ["user_vaults: the caller's vaults only", { channel: "user_vaults", want: vaultTypes(ids.vaultA) }],
  [
    "vault: events of one vault",
    { channel: "vault", filters: { vault_id: ids.vaultB }, want: vaultTypes(ids.vaultB) },
  ],
];

describe("channels", () => {
  it.each(cases)("%s", async (_name, { channel, filters, want }) => {
    const subscriber = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
    const bystander = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
    await subscriber.subscribe(channel, filters);
    publish(everything());
    expect((await subscriber.drain()).map(label)).toEqual(want);
    expect(await bystander.drain()).toEqual([]);
    subscriber.close();
    bystander.close();
  });

  it("delivers nothing for a filter id that has no events", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    await c.subscribe("vault", { vault_id: "vlt_01JD3M6ZK8Q2V7W9X4Y5Z6A7ZZ" });
    await c.subscribe("batch", { batch_id: "bat_01JD3M6ZK8Q2V7W9X4Y5Z6A7ZZ" });
    publish(everything());
    expect(await c.drain()).toEqual([]);
    c.close();
  });

  it("delivers an event once per connection when several subscriptions match it", async () => {
    const c = await TestClient.connect(svc.baseUrl, { headers: { Authorization: `Bearer ${alice.key}` } });
    await c.subscribe("all_stamps");
    await c.subscribe("user_stamps");
    await c.subscribe("stamp", { stamp_id: ids.stampA });
    await c.subscribe("all_vaults");
    await c.subscribe("user_vaults");
    await c.subscribe("vault", { vault_id: ids.vaultA });
    publish([...stampEvents(ids.stampA, alice.accountId), ...vaultEvents(ids.vaultA, alice.accountId)]);
    const got = (await c.drain()).map(label);
    expect(got).toEqual([...stampTypes(ids.stampA), ...vaultTypes(ids.vaultA)]);
    c.close();
  });

  it("stops delivering after unsubscribe", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    await c.subscribe("all_vaults");
    await c.expectReply("unsubscribed", { type: "unsubscribe", data: { channel: "all_vaults" } });
    publish(vaultEvents(ids.vaultA, alice.accountId));
    expect(await c.drain()).toEqual([]);
    c.close();
  });

  it("events carry a timestamp and no id", async () => {
    const c = await TestClient.connect(svc.baseUrl);
    await c.subscribe("batch", { batch_id: ids.batch });
    publish([batchProgress(ids.batch)]);
    const [progress] = await c.drain();
    expect(progress).toEqual({
      type: "batch_progress",
      timestamp: expect.any(String),
      data: { batchId: ids.batch, processed: 1, total: 2, percentage: 50 },
    });
    c.close();
  });

  it("shows vault_created's contentUris to the owner's connections only", async () => {
    const owner = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
    const other = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": bob.key } });
    const anonymous = await TestClient.connect(svc.baseUrl);
    for (const c of [owner, other, anonymous]) await c.subscribe("all_vaults");
    publish(vaultEvents(ids.vaultA, alice.accountId).slice(0, 1));
    const [mine] = await owner.drain();
    const [theirs] = await other.drain();
    const [public_] = await anonymous.drain();
    expect(mine?.data).toMatchObject({ vaultId: ids.vaultA, contentUris: ["s3://b/k"] });
    expect(theirs?.data).toEqual({ vaultId: ids.vaultA, state: "active", deadline: expect.any(String) });
    expect(public_?.data).toEqual(theirs?.data);
    for (const c of [owner, other, anonymous]) c.close();
  });

  it("ignores anonymous stamps on user_stamps", async () => {
    const c = await TestClient.connect(svc.baseUrl, { headers: { "X-API-Key": alice.key } });
    await c.subscribe("user_stamps");
    publish(stampEvents(ids.stampA, null));
    expect(await c.drain()).toEqual([]);
    c.close();
  });
});
