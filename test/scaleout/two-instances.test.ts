import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import { ManualClock } from "../../server/clock.js";
import type { AnyDomainEvent } from "../../server/events/bus.js";
import { grpcJsClient } from "../helpers/grpc-js.js";
import { issueKey } from "../helpers/keys.js";
import { filePart, postParts } from "../helpers/multipart.js";
import type { RunningService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";
import { TestClient } from "../ws/ws-client.js";
import { Cluster, recordEvents, tally } from "./cluster.js";

// Two instances behind one address: one PostgreSQL schema, one Redis prefix, one keys folder. The
// clock is shared and driven by hand, so vault deadlines pass without waiting.
// Events cross instances through Redis; "once" is checked with sentinels: events published after
// the one under test by each instance, so once a listener has them every earlier copy has arrived.
const clock = new ManualClock("2026-01-01T00:00:00.000Z");
let cluster: Cluster;
let a: RunningService;
let b: RunningService;
let eventsOfA: AnyDomainEvent[];
let eventsOfB: AnyDomainEvent[];
beforeAll(async () => {
  // No proof pipeline pass during the tests (a sealed stamp is streamed again, as confirmed).
  cluster = await Cluster.start(2, { BATCH_INTERVAL_MS: "3600000" }, clock);
  [a, b] = cluster.instances as [RunningService, RunningService];
  eventsOfA = recordEvents(a);
  eventsOfB = recordEvents(b);
});
afterAll(() => cluster?.close());

describe("two instances on one PostgreSQL and one Redis", () => {
  it("listen on their own ports and share the store", async () => {
    expect(a.baseUrl).not.toBe(b.baseUrl);
    expect(a.grpcPort).not.toBe(b.grpcPort);
    expect(a.service.ctx.store.kind).toBe("postgres");
    expect(b.service.ctx.store.kind).toBe("postgres");
  });

  it("read and verify on B a stamp made on A, signed with the one service key", async () => {
    const { key } = await issueKey(a, { tier: "internal" });
    const made = await createStamp(a, "made on A", { preset: "standard" }, { key });
    const read = await fetch(`${b.baseUrl}/stamps/${made.stamp_id}`);
    expect(read.status).toBe(200);
    expect((await read.json()).stamp_json).toEqual(made.stamp_json);
    const verified = await postParts(`${b.baseUrl}/stamps/${made.stamp_id}/verify`, [filePart("made on A")], {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(await verified.json()).toMatchObject({
      is_valid: true,
      signature_valid: true,
      content_hash_valid: true,
    });
    const trusted = { trustedServiceKeys: [b.service.ctx.keys.signing.publicKey] };
    expect((await verifyStamp(made.stamp_json, trusted)).is_valid).toBe(true);
  });

  it("deliver a stamp made on A to WebSocket subscribers on both instances, once each", async () => {
    const { key } = await issueKey(a, { tier: "internal" });
    const headers = { authorization: `Bearer ${key}` };
    const clients = await Promise.all([a, b].map((i) => TestClient.connect(i.baseUrl, { headers })));
    await Promise.all(clients.map((client) => client.subscribe("all_stamps")));
    const x = await createStamp(a, "x", {}, { key });
    // Sentinels from both publishers: once a client has them, every earlier copy has arrived.
    const y = await createStamp(b, "y", {}, { key });
    const z = await createStamp(a, "z", {}, { key });
    for (const client of clients) {
      const seen: string[] = [];
      while (!(seen.includes(y.stamp_id) && seen.includes(z.stamp_id))) {
        const message = await client.next();
        if (message.type === "stamp_created") seen.push(message.data.id);
      }
      seen.push(...(await client.drain()).flatMap((m) => (m.type === "stamp_created" ? [m.data.id] : [])));
      expect(tally(seen)).toEqual(
        new Map([
          [x.stamp_id, 1],
          [y.stamp_id, 1],
          [z.stamp_id, 1],
        ]),
      );
      client.close();
    }
  });

  it("stream a stamp made on A to a WatchStamps call on B, once", async () => {
    const { key } = await issueKey(a, { tier: "internal" });
    const metadata = new grpc.Metadata();
    metadata.set("authorization", `Bearer ${key}`);
    const client = grpcJsClient("svc/v1/stamp.proto", "svc.v1.StampService", b.grpcPort);
    const call = client.WatchStamps!({ filter: "" }, metadata) as grpc.ClientReadableStream<{ id: string }>;
    const seen: string[] = [];
    call.on("data", (stamp: { id: string }) => seen.push(stamp.id));
    call.on("error", () => {});
    try {
      // The call subscribes once the server has admitted it: stamp on B until one comes through.
      await vi.waitFor(async () => {
        await createStamp(b, "warm-up", {}, { key });
        expect(seen.length).toBeGreaterThan(0);
      });
      const x = await createStamp(a, "watched x", {}, { key });
      const y = await createStamp(b, "watched y", {}, { key });
      const z = await createStamp(a, "watched z", {}, { key });
      await vi.waitFor(() => expect(seen).toEqual(expect.arrayContaining([y.stamp_id, z.stamp_id])));
      const counts = tally(seen);
      expect([x, y, z].map((s) => counts.get(s.stamp_id))).toEqual([1, 1, 1]);
    } finally {
      call.cancel();
      client.close();
    }
  });

  it("share one rate limit: the seed's anonymous example spans both instances", async () => {
    // One anonymous client (by its forwarded address; loopback is a trusted proxy): burst 5, and
    // POST /stamps costs 2, so two creations pass, wherever they land, and the third is refused.
    const from = { "x-forwarded-for": "203.0.113.7" };
    const post = (instance: RunningService) =>
      fetch(`${instance.baseUrl}/stamps`, { method: "POST", headers: from, body: form("anonymous") });
    const answers = [await post(a), await post(b), await post(a), await post(b)];
    expect(answers.map((r) => r.status)).toEqual([201, 201, 429, 429]);
    expect(answers.map((r) => r.headers.get("x-ratelimit-tier"))).toEqual(Array(4).fill("anonymous"));
    expect(answers[2]!.headers.get("x-ratelimit-remaining")).toBe("0");
  });

  it("expire 200 vaults due at once exactly once, warn once each, one event each on every instance", async () => {
    const recipient = newRecipient();
    const owner = "acc_scaleout";
    const create = (instance: RunningService) =>
      instance.service.vault.service.create(owner, {
        encryptedKey,
        heartbeatDeadline: 60,
        recipientPublicKey: recipient.publicKey,
      });
    const vaults = await Promise.all(Array.from({ length: 200 }, (_, i) => create(i % 2 ? b : a)));
    const ids = vaults.map((v) => v.id).sort();
    const ticks = () => Promise.all([a, b, a, b].map((instance) => instance.service.vault.scheduler.tick()));
    await ticks();
    clock.advance(61_000);
    await ticks();
    // Sentinels: a vault created on each instance after the ticks; once both arrived everywhere,
    // every event published before them has too.
    const sentinels = [(await create(a)).id, (await create(b)).id];
    for (const seen of [eventsOfA, eventsOfB]) {
      await vi.waitFor(() => {
        const created = seen.filter((e) => e.type === "vault_created").map((e) => e.scope.vaultId);
        expect(created).toEqual(expect.arrayContaining(sentinels));
      });
      for (const type of ["vault_expired", "vault_deadline_warning"] as const) {
        const counts = tally(seen.filter((e) => e.type === type).map((e) => e.scope.vaultId));
        expect(
          ids.filter((id) => counts.get(id) !== 1),
          type,
        ).toEqual([]);
      }
    }
    const listed = await a.service.vault.deps.repo.list({
      accountId: owner,
      state: "expired",
      limit: 1,
      offset: 0,
    });
    expect(listed.total).toBe(200);
  });
});

/** A multipart body with one file part, for POST /stamps. */
function form(content: string): FormData {
  const body = new FormData();
  body.set("file", new Blob([content]), "doc.txt");
  return body;
}
