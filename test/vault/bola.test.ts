import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestFixture } from "./rest-fixture.js";

// Every vault operation that names a vault, as another account would try it on the owner's vault.
type Attempt = [
  name: string,
  method: string,
  path: (id: string) => string,
  body: (f: RestFixture, id: string) => unknown,
];
const attempts: Attempt[] = [
  ["get", "GET", (id) => `/vault/${id}`, () => undefined],
  ["heartbeat", "POST", (id) => `/vault/${id}/heartbeat`, (f) => ({ fee_receipt: f.receipt("0.50") })],
  ["release", "POST", (id) => `/vault/${id}/release`, () => ({ reason: "not mine" })],
  ["burn", "POST", (id) => `/vault/${id}/burn`, () => ({ reason: "not mine" })],
  ["add-mirror", "POST", (id) => `/vault/${id}/add-mirror`, () => ({ uri: "https://evil.example/x" })],
];

let f: RestFixture;
let owner: string;
let intruder: string;
let vaultId: string;

beforeAll(async () => {
  f = await RestFixture.start();
  owner = (await f.key()).key;
  intruder = (await f.key()).key;
  vaultId = (await f.createVault(owner, { allow_manual_release: true, heartbeat_deadline: 7 * 86_400 })).id;
});
afterAll(() => f.close());

describe("another account's vault", () => {
  it.each(attempts)(
    "%s answers 404 vault_not_found, as for an unknown id",
    async (_name, method, path, body) => {
      const theirs = await f.call(method, path(vaultId), intruder, body(f, vaultId));
      const unknown = await f.call(
        method,
        path("vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M"),
        intruder,
        body(f, vaultId),
      );
      expect(theirs.status).toBe(404);
      expect(theirs.body.code).toBe("vault_not_found");
      expect(unknown.status).toBe(404);
      expect(theirs.body.detail.replace(vaultId, "ID")).toBe(
        unknown.body.detail.replace("vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M", "ID"),
      );
    },
  );

  it("cannot be renewed in a batch (reported not_found) nor grouped (404)", async () => {
    const batch = await f.call("POST", "/vault/batch-heartbeat", intruder, {
      vault_ids: [vaultId],
      fee_receipt: f.receipt("0.45"),
    });
    expect(batch.body).toMatchObject({
      renewed: 0,
      failed: 1,
      errors: [{ vault_id: vaultId, code: "not_found" }],
    });
    const group = await f.call("POST", "/vault/group/create", intruder, {
      name: "g",
      vault_ids: [vaultId],
      interval: 3600,
    });
    expect(group).toMatchObject({ status: 404, body: { code: "vault_not_found" } });
  });

  it("is not listed, and is untouched by all of the above", async () => {
    expect((await f.call("GET", "/vault/list", intruder)).body).toMatchObject({ total: 0, items: [] });
    const mine = await f.call("GET", `/vault/${vaultId}`, owner);
    expect(mine.body).toMatchObject({
      state: "active",
      heartbeat_count: 0,
      content_uris: [],
      group_id: null,
    });
    expect(f.events.filter((e) => e.scope.vaultId === vaultId).map((e) => e.type)).toEqual(["vault_created"]);
  });
});
