import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestFixture } from "./rest-fixture.js";

let f: RestFixture;
let key: string;
let otherKey: string;

beforeAll(async () => {
  f = await RestFixture.start();
  key = (await f.key()).key;
  otherKey = (await f.key()).key;
});
afterAll(() => f.close());

describe("the vault over REST", () => {
  it("GET /vault/fees is open to anonymous callers", async () => {
    const reply = await f.call("GET", "/vault/fees");
    expect(reply).toMatchObject({
      status: 200,
      body: { create_fee: "0.00", heartbeat_fee: "0.50", batch_discount: "0.10", currency: "USDC" },
    });
  });

  it("every other vault operation needs a key (401 missing_api_key)", async () => {
    const reply = await f.call("POST", "/vault/create", undefined, f.createBody());
    expect(reply).toMatchObject({ status: 401, body: { code: "missing_api_key" } });
    expect((await f.call("GET", "/vault/list")).status).toBe(401);
  });

  it("creates (201 + Location), reads, heartbeats, lists, mirrors, releases, retrieves and burns", async () => {
    const created = await f.call(
      "POST",
      "/vault/create",
      key,
      f.createBody({ allow_manual_release: true, metadata: { label: "estate" } }),
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.headers.get("location")).toBe(`/vault/${id}`);
    expect(created.body).toMatchObject({
      state: "active",
      heartbeat_count: 0,
      last_heartbeat: null,
      allow_manual_release: true,
      metadata: { label: "estate" },
      group_id: null,
      content_uris: [],
      deadline: "2026-01-02T00:00:00.000Z",
    });
    expect(JSON.stringify(created.body)).not.toContain("encrypted_key");

    f.clock.advance(60_000);
    const beat = await f.call("POST", `/vault/${id}/heartbeat`, key, { fee_receipt: f.receipt("0.50") });
    expect(beat).toMatchObject({
      status: 200,
      body: {
        vault_id: id,
        heartbeat_at: "2026-01-01T00:01:00.000Z",
        next_deadline: "2026-01-02T00:01:00.000Z",
        fee_amount: "0.50",
        fee_currency: "USDC",
      },
    });
    expect((await f.call("GET", `/vault/${id}`, key)).body).toMatchObject({
      heartbeat_count: 1,
      last_heartbeat: "2026-01-01T00:01:00.000Z",
    });

    const listed = await f.call("GET", "/vault/list?state=active&limit=10", key);
    expect(listed.body).toMatchObject({ limit: 10, offset: 0 });
    expect(listed.body.items[0]).toEqual({
      id,
      state: "active",
      deadline: "2026-01-02T00:01:00.000Z",
      heartbeat_count: 1,
    });

    const mirror = "ar://bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U";
    expect((await f.call("POST", `/vault/${id}/add-mirror`, key, { uri: mirror })).body).toEqual({
      vault_id: id,
      content_uris: [mirror],
    });

    const released = await f.call("POST", `/vault/${id}/release`, key, { reason: "executor" });
    expect(released.body).toEqual({
      vault_id: id,
      released: true,
      released_at: "2026-01-01T00:01:00.000Z",
      reason: "executor",
    });

    const retrieved = await f.call("POST", `/vault/${id}/retrieve`, otherKey, f.proof(id));
    expect(retrieved).toMatchObject({
      status: 200,
      body: {
        vault_id: id,
        encrypted_key: f.createBody().encrypted_key,
        released_at: "2026-01-01T00:01:00.000Z",
      },
    });

    const burned = await f.call("POST", `/vault/${id}/burn`, key, { reason: "done" });
    expect(burned.body).toEqual({
      vault_id: id,
      burned: true,
      burned_at: "2026-01-01T00:01:00.000Z",
      reason: "done",
    });
    expect((await f.call("POST", `/vault/${id}/retrieve`, otherKey, f.proof(id))).body).toMatchObject({
      code: "vault_not_retrievable",
    });
  });

  it("maps refusals to the spec's statuses and codes", async () => {
    const vault = await f.createVault(key);
    const cases: [string, string, unknown, number, string][] = [
      ["POST", `/vault/${vault.id}/release`, { reason: "x" }, 403, "manual_release_not_allowed"],
      ["POST", `/vault/${vault.id}/retrieve`, f.proof(vault.id), 409, "vault_not_retrievable"],
      ["POST", `/vault/${vault.id}/heartbeat`, { fee_receipt: f.receipt("0.01") }, 422, "fee_insufficient"],
      ["POST", `/vault/${vault.id}/add-mirror`, { uri: "http://plain.example/x" }, 400, "validation_failed"],
      ["POST", `/vault/${vault.id}/add-mirror`, { uri: "ipfs://nope" }, 400, "validation_failed"],
      ["POST", "/vault/create", f.createBody({ heartbeat_deadline: 59 }), 400, "validation_failed"],
      ["GET", "/vault/list?limit=501", undefined, 400, "validation_failed"],
      ["GET", "/vault/vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M", undefined, 404, "vault_not_found"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const reply = await f.call(method, path, key, body);
      expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status, code });
    }
  });

  it("reports a batch heartbeat's failures in `errors`", async () => {
    const a = await f.createVault(key);
    const theirs = await f.createVault(otherKey);
    const reply = await f.call("POST", "/vault/batch-heartbeat", key, {
      vault_ids: [a.id, theirs.id, a.id],
      fee_receipt: f.receipt("0.90"),
    });
    expect(reply.body).toMatchObject({
      renewed: 1,
      failed: 2,
      results: [{ vault_id: a.id }],
      errors: [
        { vault_id: theirs.id, code: "not_found" },
        { vault_id: a.id, code: "duplicate" },
      ],
    });
  });

  it("creates a heartbeat group (201)", async () => {
    const a = await f.createVault(key);
    const reply = await f.call("POST", "/vault/group/create", key, {
      name: "estate",
      vault_ids: [a.id],
      interval: 3600,
    });
    expect(reply).toMatchObject({ status: 201, body: { name: "estate", vault_ids: [a.id], interval: 3600 } });
    expect((await f.call("GET", `/vault/${a.id}`, key)).body.group_id).toBe(reply.body.id);
  });
});

describe("the explorer", () => {
  it("lists every account's vaults without keys, owners, URIs or metadata", async () => {
    const reply = await f.call("GET", "/explorer/api/vaults?limit=500");
    expect(reply.status).toBe(200);
    const text = JSON.stringify(reply.body);
    for (const secret of ["encrypted_key", "metadata", "content_uris", "recipient", "acc_", "estate"]) {
      expect(text).not.toContain(secret);
    }
    expect(Object.keys(reply.body.items[0]).sort()).toEqual([
      "created_at",
      "deadline",
      "heartbeat_count",
      "id",
      "state",
    ]);
  });

  it("counts exactly what the store holds", async () => {
    const { db } = f.svc.service.ctx.store as unknown as { db: import("better-sqlite3").Database };
    const one = (sql: string) => Object.values(db.prepare(sql).get() as object)[0];
    const stats = (await f.call("GET", "/explorer/api/stats")).body;
    expect(stats).toEqual({
      active_vaults: one("SELECT count(*) FROM vaults WHERE state = 'active'"),
      total_vaults: one("SELECT count(*) FROM vaults"),
      total_heartbeats: one("SELECT sum(heartbeat_count) FROM vaults"),
      total_releases: one("SELECT count(*) FROM vaults WHERE released_at IS NOT NULL"),
      total_burns: one("SELECT count(*) FROM vaults WHERE state = 'burned'"),
      total_fees_collected: "1.40",
      fee_currency: "USDC",
    });
    const listed = await f.call("GET", "/explorer/api/vaults?state=active&limit=1&offset=1");
    expect(listed.body).toMatchObject({ total: stats.active_vaults, limit: 1, offset: 1 });
    expect(listed.body.items).toHaveLength(1);
  });
});
