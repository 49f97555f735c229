import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listOperations } from "../../server/contract/openapi.js";
import { newRecipient } from "./fixture.js";
import { RestFixture } from "./rest-fixture.js";

// Broken object-level authorization (OWASP API1): every /vault operation of specs/openapi.yaml, as
// another account would try it on the owner's vaults. The operations come from the spec, so a new
// one fails "covers every operation" until it is given a case below, and a new path naming a vault
// is tried by the intruder at once.
const vaultOperations = listOperations().filter((op) => op.path.startsWith("/vault"));
const UNKNOWN = "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M";

/** How each operation is checked: `byId` ones by the generic probe, with this body. */
type Check =
  | { byId: (f: RestFixture) => unknown }
  | { own: "retrieve" | "batch" | "group" | "list" | "create" | "public" };

const checks: Record<string, Check> = {
  getVault: { byId: () => undefined },
  heartbeatVault: { byId: (f) => ({ fee_receipt: f.receipt("0.50") }) },
  releaseVault: { byId: () => ({ reason: "not mine" }) },
  burnVault: { byId: () => ({ reason: "not mine" }) },
  addVaultMirror: { byId: () => ({ uri: "https://evil.example/x" }) },
  retrieveVaultKey: { own: "retrieve" },
  batchHeartbeat: { own: "batch" },
  createHeartbeatGroup: { own: "group" },
  listVaults: { own: "list" },
  createVault: { own: "create" },
  getVaultFees: { own: "public" },
};

let f: RestFixture;
let owner: string;
let intruder: string;
let vaultId: string;
let releasedId: string;

beforeAll(async () => {
  f = await RestFixture.start();
  owner = (await f.key()).key;
  intruder = (await f.key()).key;
  vaultId = (await f.createVault(owner, { allow_manual_release: true, heartbeat_deadline: 7 * 86_400 })).id;
  releasedId = (await f.createVault(owner, { allow_manual_release: true })).id;
  await f.call("POST", `/vault/${releasedId}/release`, owner, { reason: "for the recipient" });
});
afterAll(() => f.close());

describe("another account's vault", () => {
  it("covers every /vault operation of the spec", () => {
    const inSpec = vaultOperations.map((op) => op.operationId).sort();
    expect(Object.keys(checks).sort()).toEqual(inSpec);
  });

  const byId = vaultOperations.filter((op) => op.path.includes("{id}") && "byId" in checks[op.operationId]!);
  it.each(byId.map((op) => [op.operationId, op] as const))(
    "%s answers 404 vault_not_found, exactly as for an unknown id",
    async (operationId, op) => {
      const body = (checks[operationId] as { byId: (f: RestFixture) => unknown }).byId;
      const method = op.method.toUpperCase();
      const theirs = await f.call(method, op.path.replace("{id}", vaultId), intruder, body(f));
      const unknown = await f.call(method, op.path.replace("{id}", UNKNOWN), intruder, body(f));
      expect(theirs.status).toBe(404);
      expect(theirs.body.code).toBe("vault_not_found");
      expect(unknown.status).toBe(404);
      expect(theirs.body.detail.replace(vaultId, "ID")).toBe(unknown.body.detail.replace(UNKNOWN, "ID"));
    },
  );

  it("retrieveVaultKey: needs the recipient's proof, not the account; without it nothing is released", async () => {
    const forged = newRecipient().prove(releasedId, f.clock.now().toISOString());
    const refused = await f.call("POST", `/vault/${releasedId}/retrieve`, intruder, {
      proof_of_identity: forged.proofOfIdentity,
      signed_at: forged.signedAt,
    });
    expect(refused).toMatchObject({ status: 403, body: { code: "invalid_proof_of_identity" } });
    expect(JSON.stringify(refused.body)).not.toContain("encrypted_key");
    // The recipient is rarely the owner: whoever holds the recipient's proof may call (the spec's rule).
    const granted = await f.call("POST", `/vault/${releasedId}/retrieve`, intruder, f.proof(releasedId));
    expect(granted.status).toBe(200);
  });

  it("batchHeartbeat: cannot renew it (reported not_found); createHeartbeatGroup: cannot group it (404)", async () => {
    const batch = await f.call("POST", "/vault/batch-heartbeat", intruder, {
      vault_ids: [vaultId],
      fee_receipt: f.receipt("0.50"),
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

  it("listVaults and createVault: list and create only in the caller's account; getVaultFees names no vault", async () => {
    expect((await f.call("GET", "/vault/list", intruder)).body).toMatchObject({ total: 0, items: [] });
    const created = await f.createVault(intruder);
    expect(
      (await f.call("GET", "/vault/list", intruder)).body.items.map((v: { id: string }) => v.id),
    ).toEqual([created.id]);
    expect((await f.call("GET", `/vault/${created.id}`, owner)).status).toBe(404);
    expect(JSON.stringify((await f.call("GET", "/vault/fees")).body)).not.toMatch(/vlt_/);
  });

  it("is untouched by all of the above", async () => {
    const mine = await f.call("GET", `/vault/${vaultId}`, owner);
    expect(mine.body).toMatchObject({
      state: "active",
      heartbeat_count: 0,
      content_uris: [],
      group_id: null,
    });
    expect(f.events.filter((e) => e.scope.vaultId === vaultId).map((e) => e.type)).toEqual(["vault_created"]);
    expect((await f.call("GET", "/vault/list", owner)).body.total).toBe(2);
  });
});
