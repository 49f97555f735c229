import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestFixture } from "./rest-fixture.js";

let f: RestFixture;
let key: string;

beforeAll(async () => {
  f = await RestFixture.start();
  key = (await f.key()).key;
});
afterAll(() => f.close());

const withKey = (k: string) => ({ "idempotency-key": k });

describe("Idempotency-Key", () => {
  it("replays a created vault: same status, Location and body, one vault", async () => {
    const body = f.createBody({ metadata: { a: "1", b: "2" } });
    const first = await f.call("POST", "/vault/create", key, body, withKey("create-1"));
    // Same body with another key order: the same request.
    const reordered = { metadata: { b: "2", a: "1" }, ...f.createBody() };
    const again = await f.call("POST", "/vault/create", key, reordered, withKey("create-1"));
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect((await f.call("GET", "/vault/list", key)).body.total).toBe(1);
    expect(f.events.filter((e) => e.type === "vault_created")).toHaveLength(1);
  });

  it("does not charge a retried heartbeat twice", async () => {
    const vault = await f.createVault(key);
    const body = { fee_receipt: f.receipt("0.50") };
    const first = await f.call("POST", `/vault/${vault.id}/heartbeat`, key, body, withKey("beat-1"));
    f.clock.advance(5000);
    const again = await f.call("POST", `/vault/${vault.id}/heartbeat`, key, body, withKey("beat-1"));
    expect(again).toMatchObject({ status: 200, body: first.body });
    expect((await f.call("GET", `/vault/${vault.id}`, key)).body.heartbeat_count).toBe(1);
    // Without the key the receipt's reuse is caught for what it is.
    const plain = await f.call("POST", `/vault/${vault.id}/heartbeat`, key, body);
    expect(plain).toMatchObject({ status: 409, body: { code: "fee_receipt_used" } });
  });

  it("replays a batch heartbeat", async () => {
    const vault = await f.createVault(key);
    const body = { vault_ids: [vault.id], fee_receipt: f.receipt("0.50") };
    const first = await f.call("POST", "/vault/batch-heartbeat", key, body, withKey("batch-1"));
    const again = await f.call("POST", "/vault/batch-heartbeat", key, body, withKey("batch-1"));
    expect(again.body).toEqual(first.body);
    expect((await f.call("GET", `/vault/${vault.id}`, key)).body.heartbeat_count).toBe(1);
  });

  it("refuses the same key with a different body (409 idempotency_key_reused)", async () => {
    await f.call("POST", "/vault/create", key, f.createBody(), withKey("create-2"));
    const other = await f.call(
      "POST",
      "/vault/create",
      key,
      f.createBody({ heartbeat_deadline: 7200 }),
      withKey("create-2"),
    );
    expect(other).toMatchObject({ status: 409, body: { code: "idempotency_key_reused" } });
  });

  it("replays a refusal too, so a retry sees what the first attempt saw", async () => {
    const vault = await f.createVault(key);
    const body = { fee_receipt: f.receipt("0.10") };
    const first = await f.call("POST", `/vault/${vault.id}/heartbeat`, key, body, withKey("beat-2"));
    const again = await f.call("POST", `/vault/${vault.id}/heartbeat`, key, body, withKey("beat-2"));
    expect(first).toMatchObject({ status: 422, body: { code: "fee_insufficient" } });
    expect(again).toMatchObject({ status: 422, body: first.body });
  });

  it("scopes keys to the account and to the operation", async () => {
    const other = (await f.key()).key;
    const mine = await f.call("POST", "/vault/create", key, f.createBody(), withKey("shared"));
    const theirs = await f.call("POST", "/vault/create", other, f.createBody(), withKey("shared"));
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);
    const vault = await f.createVault(key);
    const beat = await f.call(
      "POST",
      `/vault/${vault.id}/heartbeat`,
      key,
      { fee_receipt: f.receipt("0.50") },
      withKey("shared"),
    );
    expect(beat.status).toBe(200);
  });

  it("forgets a key after 24 hours", async () => {
    const first = await f.call("POST", "/vault/create", key, f.createBody(), withKey("create-3"));
    f.clock.advance(24 * 3_600_000);
    const later = await f.call("POST", "/vault/create", key, f.createBody(), withKey("create-3"));
    expect(later.status).toBe(201);
    expect(later.body.id).not.toBe(first.body.id);
  });
});
