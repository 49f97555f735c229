import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../server/clock.js";
import { signReceipt } from "../../server/vault/fees/receipt.js";
import { randomSigner } from "../vault/fixture.js";
import { RestFixture } from "../vault/rest-fixture.js";

// Replayed and forged credentials of the vault over REST: fee receipts (single-use, signed by a
// trusted issuer) and proof_of_identity (fresh, single-use, surviving a restart). The domain
// rules are tested on both stores in test/vault/fees-suite.ts and lifecycle-suite.ts.
const dataDir = mkdtempSync(join(tmpdir(), "stampd-replay-"));
const clock = new ManualClock("2026-03-01T12:00:00.000Z");
let f: RestFixture;
let alice: string;
let bob: string;

beforeAll(async () => {
  f = await RestFixture.start({ DATA_DIR: dataDir, VAULT_CREATE_FEE: "0.50" }, clock);
  alice = (await f.key()).key;
  bob = (await f.key()).key;
});
afterAll(async () => {
  await f.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const heartbeat = (key: string, vaultId: string, receipt: string, idempotencyKey?: string) =>
  f.call(
    "POST",
    `/vault/${vaultId}/heartbeat`,
    key,
    { fee_receipt: receipt },
    idempotencyKey ? { "idempotency-key": idempotencyKey } : {},
  );
const create = (key: string, receipt: string, overrides: Record<string, unknown> = {}) =>
  f.call("POST", "/vault/create", key, f.createBody({ fee_receipt: receipt, ...overrides }));
const vaultOf = async (key: string) => {
  const reply = await create(key, f.receipt("0.50"), { allow_manual_release: true });
  expect(reply.status).toBe(201);
  return reply.body.id as string;
};

describe("fee receipts", () => {
  it("are spent once, whoever presents them again, for whatever purpose", async () => {
    const [aliceVault, bobVault] = [await vaultOf(alice), await vaultOf(bob)];
    const receipt = f.receipt("0.50");
    expect((await heartbeat(alice, aliceVault, receipt)).status).toBe(200);
    const replays = [
      await heartbeat(alice, aliceVault, receipt),
      await heartbeat(bob, bobVault, receipt),
      await f.call("POST", "/vault/batch-heartbeat", bob, { vault_ids: [bobVault], fee_receipt: receipt }),
      await create(bob, receipt),
    ];
    for (const replay of replays) {
      expect(replay).toMatchObject({ status: 409, body: { code: "fee_receipt_used" } });
    }
    const bobs = await f.call("GET", `/vault/${bobVault}`, bob);
    expect(bobs.body.heartbeat_count).toBe(0);
  });

  it("replays the first answer for its own Idempotency-Key, without spending it twice", async () => {
    const vault = await vaultOf(alice);
    const receipt = f.receipt("0.50");
    const first = await heartbeat(alice, vault, receipt, "hb-1");
    const retry = await heartbeat(alice, vault, receipt, "hb-1");
    expect(retry).toMatchObject({ status: first.status, body: first.body });
    expect((await f.call("GET", `/vault/${vault}`, alice)).body.heartbeat_count).toBe(1);
    expect((await heartbeat(alice, vault, receipt, "hb-2")).status).toBe(409);
  });

  /** A receipt's three dot-separated parts: `rcpt1`, the payload and the signature. */
  const parts = (receipt: string) => receipt.split(".") as [string, string, string];
  const forgeries: [string, () => string][] = [
    [
      "a flipped signature byte",
      () => {
        const [p, body, sig] = parts(f.receipt("0.50"));
        return `${p}.${body}.${sig[0] === "A" ? "B" : "A"}${sig.slice(1)}`;
      },
    ],
    [
      "an amount raised after signing",
      () => {
        const [p, body, sig] = parts(f.receipt("0.01"));
        const raised = Buffer.from(body, "base64url").toString().replace('"0.01"', '"5.00"');
        return `${p}.${Buffer.from(raised).toString("base64url")}.${sig}`;
      },
    ],
    [
      "a receipt signed by a key the service does not trust",
      () => {
        const [, body] = parts(f.receipt("0.50"));
        return signReceipt(JSON.parse(Buffer.from(body, "base64url").toString()), randomSigner());
      },
    ],
    [
      "another receipt's signature",
      () => {
        const [p, body] = parts(f.receipt("5.00"));
        return `${p}.${body}.${parts(f.receipt("0.50"))[2]}`;
      },
    ],
  ];

  it.each(forgeries)("refuse %s (422 fee_receipt_invalid) and change nothing", async (_name, forge) => {
    const vault = await vaultOf(alice);
    const reply = await heartbeat(alice, vault, forge());
    expect(reply).toMatchObject({ status: 422, body: { code: "fee_receipt_invalid" } });
    expect((await f.call("GET", `/vault/${vault}`, alice)).body.heartbeat_count).toBe(0);
  });

  // Not even of the receipt's shape (the spec's pattern for `fee_receipt`): refused before any check.
  it.each([
    [
      "the signature in base64 with padding",
      (sig: string) => Buffer.from(sig, "base64url").toString("base64"),
    ],
    ["no signature", () => ""],
  ])("refuse %s (400 validation_failed)", async (_name, respell) => {
    const vault = await vaultOf(alice);
    const [p, body, sig] = parts(f.receipt("0.50"));
    const reply = await heartbeat(alice, vault, `${p}.${body}${respell(sig) ? `.${respell(sig)}` : ""}`);
    expect(reply).toMatchObject({ status: 400, body: { code: "validation_failed" } });
  });
});

describe("proof_of_identity", () => {
  const retrieve = (key: string, vaultId: string, proof: { proof_of_identity: string; signed_at: string }) =>
    f.call("POST", `/vault/${vaultId}/retrieve`, key, proof);
  const refused = { status: 403, body: { code: "invalid_proof_of_identity" } };
  const spent = { status: 403, body: { ...refused.body, detail: "this proof_of_identity was already used" } };

  const released = async () => {
    const id = await vaultOf(alice);
    await f.call("POST", `/vault/${id}/release`, alice, { reason: "test" });
    return id;
  };

  it("is accepted once: the same proof again, from any account, is refused", async () => {
    const vault = await released();
    const proof = f.proof(vault);
    expect((await retrieve(bob, vault, proof)).status).toBe(200);
    expect(await retrieve(bob, vault, proof)).toMatchObject(spent);
    expect(await retrieve(alice, vault, proof)).toMatchObject(spent);
    // The last character before "==" carries 2 bits of the signature and 4 unused ones: flipping an
    // unused bit spells the same signature differently, and it is still the same, spent proof.
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const text = proof.proof_of_identity;
    const respelled = `${text.slice(0, 85)}${alphabet[alphabet.indexOf(text[85]!) ^ 1]}==`;
    expect(Buffer.from(respelled, "base64")).toEqual(Buffer.from(text, "base64"));
    expect(await retrieve(bob, vault, { ...proof, proof_of_identity: respelled })).toMatchObject(spent);
  });

  it("is refused when stale, from the future, or made for another vault", async () => {
    const [vault, other] = [await released(), await released()];
    const at = (offsetMs: number) => new Date(clock.now().getTime() + offsetMs).toISOString();
    const stale = f.recipient.prove(vault, at(-301_000));
    const future = f.recipient.prove(vault, at(301_000));
    const elsewhere = f.recipient.prove(other, at(0));
    for (const p of [stale, future, elsewhere]) {
      expect(
        await retrieve(bob, vault, { proof_of_identity: p.proofOfIdentity, signed_at: p.signedAt }),
      ).toMatchObject(refused);
    }
    const proof = f.proof(vault);
    expect(await retrieve(bob, vault, { ...proof, signed_at: at(1000) })).toMatchObject(refused);
  });

  it("stays spent across a restart of the service", async () => {
    const vault = await released();
    const proof = f.proof(vault);
    expect((await retrieve(bob, vault, proof)).status).toBe(200);
    await f.close();
    f = await RestFixture.start({ DATA_DIR: dataDir, VAULT_CREATE_FEE: "0.50" }, clock);
    expect(await retrieve(bob, vault, proof)).toMatchObject(spent);
  });
});
