import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RestFixture } from "./rest-fixture.js";

// A client written from the interface every client may rely on uses the vault with plain fetch and
// JSON bodies holding only the seed's fields: no recipient_public_key, no signed_at. Its vaults are
// owner-bound (only the creating account retrieves, with a single-use proof_of_identity), and
// metadata holds any JSON values within documented bounds.

let f: RestFixture;
let owner: string;
let stranger: string;
const encryptedKey = Buffer.from("age1 ciphertext, never seen in clear").toString("base64");
const freshProof = () => ({ proof_of_identity: randomBytes(32).toString("base64") });

beforeAll(async () => {
  f = await RestFixture.start();
  owner = (await f.key()).key;
  stranger = (await f.key()).key;
});
afterAll(() => f.close());

async function create(body: Record<string, unknown>): Promise<string> {
  const reply = await f.call("POST", "/vault/create", owner, body);
  expect(reply.status, JSON.stringify(reply.body)).toBe(201);
  return reply.body.id as string;
}

async function heartbeat(id: string) {
  const reply = await f.call("POST", `/vault/${id}/heartbeat`, owner, { fee_receipt: f.receipt("0.50") });
  expect(reply.status, JSON.stringify(reply.body)).toBe(200);
  return reply.body as { next_deadline: string };
}

describe("a seed-only vault", () => {
  it("lives through create, heartbeat, manual release and retrieval by its owner", async () => {
    const metadata = {
      label: "estate",
      copies: 2,
      tags: ["a", "b"],
      witness: { name: "Dana", verified: true },
    };
    const created = await f.call("POST", "/vault/create", owner, {
      encrypted_key: encryptedKey,
      heartbeat_deadline: 86_400,
      content_uris: ["ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"],
      allow_manual_release: true,
      metadata,
    });
    expect(created).toMatchObject({
      status: 201,
      body: { state: "active", metadata, recipient_public_key: null },
    });
    const id = created.body.id as string;

    await heartbeat(id);
    expect((await f.call("GET", `/vault/${id}`, owner)).body).toMatchObject({ heartbeat_count: 1, metadata });
    const released = await f.call("POST", `/vault/${id}/release`, owner, { reason: "handing over" });
    expect(released).toMatchObject({ status: 200, body: { released: true, reason: "handing over" } });

    const proof = freshProof();
    const retrieved = await f.call("POST", `/vault/${id}/retrieve`, owner, proof);
    expect(retrieved).toMatchObject({ status: 200, body: { vault_id: id, encrypted_key: encryptedKey } });
    // Retrieval can be repeated, each time with a new proof.
    expect((await f.call("POST", `/vault/${id}/retrieve`, owner, freshProof())).status).toBe(200);
  });

  it("is retrieved after its deadline passes without a heartbeat (expired)", async () => {
    const id = await create({ encrypted_key: encryptedKey, heartbeat_deadline: 60 });
    const { next_deadline } = await heartbeat(id);
    f.clock.advance(60_000);
    await f.tick();
    expect((await f.call("GET", `/vault/${id}`, owner)).body.state).toBe("expired");
    const retrieved = await f.call("POST", `/vault/${id}/retrieve`, owner, freshProof());
    expect(retrieved).toMatchObject({
      status: 200,
      body: { vault_id: id, encrypted_key: encryptedKey, released_at: next_deadline },
    });
  });

  it("refuses a replayed proof_of_identity (403), from the owner and from anyone else", async () => {
    const id = await create({
      encrypted_key: encryptedKey,
      heartbeat_deadline: 60,
      allow_manual_release: true,
    });
    await f.call("POST", `/vault/${id}/release`, owner, { reason: "now" });
    const proof = freshProof();
    expect((await f.call("POST", `/vault/${id}/retrieve`, owner, proof)).status).toBe(200);
    const replay = await f.call("POST", `/vault/${id}/retrieve`, owner, proof);
    expect(replay).toMatchObject({ status: 403, body: { code: "invalid_proof_of_identity" } });
    expect(replay.body.detail).toMatch(/already used/);
    expect((await f.call("POST", `/vault/${id}/retrieve`, stranger, proof)).status).toBe(404);
  });

  it("answers 404 to another account on every call, as for an unknown id", async () => {
    const id = await create({
      encrypted_key: encryptedKey,
      heartbeat_deadline: 60,
      allow_manual_release: true,
    });
    await f.call("POST", `/vault/${id}/release`, owner, { reason: "now" });
    const unknown = await f.call(
      "POST",
      "/vault/vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M/retrieve",
      stranger,
      freshProof(),
    );
    const theirs = await f.call("POST", `/vault/${id}/retrieve`, stranger, freshProof());
    expect(theirs).toMatchObject({ status: 404, body: { code: "vault_not_found" } });
    expect(theirs.body.detail.replace(id, "ID")).toBe(
      unknown.body.detail.replace("vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M", "ID"),
    );
    expect((await f.call("GET", `/vault/${id}`, stranger)).status).toBe(404);
    // The stranger's attempts spent nothing: the owner still retrieves.
    expect((await f.call("POST", `/vault/${id}/retrieve`, owner, freshProof())).status).toBe(200);
  });

  it("refuses a proof_of_identity that is not base64 of at least 16 bytes (400)", async () => {
    const id = await create({
      encrypted_key: encryptedKey,
      heartbeat_deadline: 60,
      allow_manual_release: true,
    });
    await f.call("POST", `/vault/${id}/release`, owner, { reason: "now" });
    for (const proof_of_identity of [randomBytes(15).toString("base64"), "not base64 at all!!!!!!!!", ""]) {
      const reply = await f.call("POST", `/vault/${id}/retrieve`, owner, { proof_of_identity });
      expect(reply).toMatchObject({ status: 400, body: { code: "validation_failed" } });
    }
  });
});

describe("a vault with a recipient key", () => {
  it("still needs the recipient's signature and signed_at (400 without signed_at)", async () => {
    const id = await create({ ...f.createBody(), allow_manual_release: true });
    await f.call("POST", `/vault/${id}/release`, owner, { reason: "now" });
    const { proof_of_identity, signed_at } = f.proof(id);
    const missing = await f.call("POST", `/vault/${id}/retrieve`, stranger, { proof_of_identity });
    expect(missing).toMatchObject({
      status: 400,
      body: { code: "validation_failed", errors: [{ path: "/body/signed_at" }] },
    });
    const random = await f.call("POST", `/vault/${id}/retrieve`, stranger, { ...freshProof(), signed_at });
    expect(random).toMatchObject({ status: 403, body: { code: "invalid_proof_of_identity" } });
    const signed = await f.call("POST", `/vault/${id}/retrieve`, stranger, { proof_of_identity, signed_at });
    expect(signed).toMatchObject({ status: 200, body: { encrypted_key: f.createBody().encrypted_key } });
  });
});

describe("vault metadata", () => {
  /** `arrays` arrays, one in the other: under the metadata object, that many levels + 1. */
  const nest = (arrays: number): unknown => {
    let value: unknown = "leaf";
    for (let i = 0; i < arrays; i++) value = [value];
    return value;
  };

  it.each([
    ["a number", { n: 1 }],
    ["every JSON type", { s: "x", n: -1.5e3, t: true, f: false, z: null, a: [1, "two", [3]], o: { k: {} } }],
    ["8 levels (the bound)", { deep: nest(7) }],
    ["16384 bytes as JSON (the bound)", { big: "é".repeat((16_384 - '{"big":""}'.length) / 2) }],
  ])("accepts %s and returns it exactly", async (_name, metadata) => {
    const reply = await f.call("POST", "/vault/create", owner, {
      encrypted_key: encryptedKey,
      heartbeat_deadline: 3600,
      metadata,
    });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(JSON.stringify(reply.body.metadata)).toBe(JSON.stringify(metadata));
    const stored = await f.call("GET", `/vault/${reply.body.id}`, owner);
    expect(JSON.stringify(stored.body.metadata)).toBe(JSON.stringify(metadata));
  });

  it.each([
    ["nested 9 levels", { deep: nest(8) }, "/body/metadata"],
    ["over 16384 bytes as JSON", { big: "é".repeat(8_200) }, "/body/metadata"],
    [
      "with 33 keys",
      Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])),
      "/body/metadata",
    ],
    ["with an empty key", { "": 1 }, "/body/metadata"],
    ["that is not an object", ["a", 1], "/body/metadata"],
  ])("refuses metadata %s (400 validation_failed)", async (_name, metadata, path) => {
    const reply = await f.call("POST", "/vault/create", owner, {
      encrypted_key: encryptedKey,
      heartbeat_deadline: 3600,
      metadata,
    });
    expect(reply).toMatchObject({ status: 400, body: { code: "validation_failed" } });
    expect(reply.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it("refuses metadata nested 100 000 levels with a 400, not a stack overflow", async () => {
    // Written as text: JSON.stringify itself would overflow the stack on such a value.
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    const res = await fetch(`${f.svc.baseUrl}/vault/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${owner}`, "content-type": "application/json" },
      body: `{"encrypted_key":"${encryptedKey}","heartbeat_deadline":3600,"metadata":{"deep":${deep}}}`,
    });
    expect(res.status).toBe(400);
    // Past the 64 levels every JSON body may nest (the spec's Conventions), before the 8 of metadata.
    const body = await res.json();
    expect(body).toMatchObject({ code: "invalid_json" });
    expect(body.detail).toContain('"/body/metadata/deep');
  });
});
