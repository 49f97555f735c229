import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { IdentityService, type KeyPairGenerator } from "../../server/identities/identity-service.js";
import { atRestCipher } from "../../server/keys/at-rest-cipher.js";
import { formatPublicKey } from "../../server/keys/ed25519.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";

let svc: RunningService;
beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(() => svc.close());

const postIdentity = (key?: string) =>
  fetch(`${svc.baseUrl}/identity`, {
    method: "POST",
    headers: key ? { authorization: `Bearer ${key}` } : {},
  });

describe("POST /identity", () => {
  it("answers 401 missing_api_key without a key", async () => {
    const res = await postIdentity();
    expect(res.status).toBe(401);
    expect((await res.json()).code).toBe("missing_api_key");
  });

  it("creates an Ed25519 identity whose id is the public key's first 16 hex characters", async () => {
    const { key } = await issueKey(svc);
    const res = await postIdentity(key);
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(["created_at", "identity_id", "public_key"]);
    expect(body.public_key).toMatch(/^ed25519:[0-9a-f]{64}$/);
    expect(body.identity_id).toBe(body.public_key.slice(8, 24));
    expect(res.headers.get("location")).toBe(`/identity/${body.identity_id}`);
  });
});

describe("GET /identity/{identity_id}", () => {
  it("is public and counts the stamps signed by the identity", async () => {
    const { key } = await issueKey(svc);
    const created = await (await postIdentity(key)).json();
    await createStamp(svc, "a", { identity_id: created.identity_id }, { key });
    await createStamp(svc, "b", { identity_id: created.identity_id }, { key });
    await createStamp(svc, "unsigned", {}, { key });
    const res = await fetch(`${svc.baseUrl}/identity/${created.identity_id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...created, stamp_count: 2 });
  });

  it("answers 404 identity_not_found for an unknown id and 400 for a malformed one", async () => {
    const missing = await fetch(`${svc.baseUrl}/identity/0123456789abcdef`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe("identity_not_found");
    expect((await fetch(`${svc.baseUrl}/identity/XYZ`)).status).toBe(400);
  });
});

describe("IdentityService", () => {
  let store: SqliteStore;
  beforeAll(async () => {
    store = new SqliteStore(":memory:");
    await store.migrate();
  });
  afterAll(() => store.close());
  const cipher = atRestCipher(Buffer.alloc(32, 7));

  it("regenerates the key pair when its id prefix is taken, so ids stay unique", async () => {
    const taken = generateKeyPairSync("ed25519");
    const fresh = generateKeyPairSync("ed25519");
    const queue = [taken, taken, fresh];
    const generate: KeyPairGenerator = () => queue.shift()!;
    const identities = new IdentityService(
      store.identities,
      store.stamps,
      cipher,
      new ManualClock(),
      generate,
    );
    const first = await identities.create("acct_a");
    const second = await identities.create("acct_b");
    expect(first.public_key).toBe(formatPublicKey(taken.publicKey));
    expect(second.public_key).toBe(formatPublicKey(fresh.publicKey));
    expect(queue).toEqual([]);
  });

  it("stores the private key sealed: not in clear, and bound to its identity id", async () => {
    const identities = new IdentityService(store.identities, store.stamps, cipher, new ManualClock());
    const { identity_id } = await identities.create("acct_c");
    const stored = (await store.identities.get(identity_id))!;
    const signer = await identities.signerFor(identity_id, "acct_c");
    expect(signer.publicKey).toBe(stored.publicKey);
    // PKCS#8 of an Ed25519 key starts with this header; the sealed bytes must not contain it.
    expect(stored.sealedPrivateKey.includes(Buffer.from("302e020100300506032b6570", "hex"))).toBe(false);
    expect(() => cipher.open(stored.sealedPrivateKey, "another-identity")).toThrow();
    expect(() => atRestCipher(Buffer.alloc(32, 8)).open(stored.sealedPrivateKey, identity_id)).toThrow();
  });

  it("refuses to sign for another account (403), without an account (401), an unknown id (404)", async () => {
    const identities = new IdentityService(store.identities, store.stamps, cipher, new ManualClock());
    const { identity_id } = await identities.create("acct_d");
    await expect(identities.signerFor(identity_id, "acct_e")).rejects.toMatchObject({
      reason: "identity_not_owned",
    });
    await expect(identities.signerFor(identity_id, null)).rejects.toMatchObject({
      reason: "missing_api_key",
    });
    await expect(identities.signerFor("ffffffffffffffff", "acct_d")).rejects.toMatchObject({
      reason: "identity_not_found",
    });
  });
});
