import { afterEach, describe, expect, it } from "vitest";
import type { Signer } from "../../server/keys/ed25519.js";
import { postgres, sqlite } from "../store/engines.js";
import { randomSigner, VaultFixture } from "./fixture.js";

// Issue #35, item 7: fee receipts made as an attacker would make them, each signed by an issuer
// the server trusts, so only the check under test can refuse them.
const alice = "acc_alice";
const day = 86_400;
let f: VaultFixture | undefined;
afterEach(() => f?.close());

/** A receipt over exactly these payload bytes, as `signReceipt` would frame any payload. */
function rawReceipt(payload: string, issuer: Signer): string {
  const bytes = Buffer.from(payload, "utf8");
  const signature = Buffer.from(issuer.sign(bytes), "hex");
  return `rcpt1.${bytes.toString("base64url")}.${signature.toString("base64url")}`;
}

const at = (fixture: VaultFixture, seconds: number) =>
  new Date(fixture.clock.now().getTime() + seconds * 1000).toISOString();

describe("fee receipts' issued_at", () => {
  it("refuses a receipt issued in the future beyond FEE_RECEIPT_CLOCK_SKEW_SECONDS, takes one within it", async () => {
    f = await VaultFixture.open({ FEE_RECEIPT_CLOCK_SKEW_SECONDS: "60" });
    const vault = await f.create(alice);
    const ahead = f.receipt("0.50", { issued_at: at(f, 61), expires_at: at(f, day) });
    await expect(f.vaults.heartbeat(alice, vault.id, ahead)).rejects.toMatchObject({
      code: "unprocessable",
      reason: "fee_receipt_invalid",
      message: expect.stringContaining("more than 60 s after this server's time"),
    });
    const skewed = f.receipt("0.50", { issued_at: at(f, 60), expires_at: at(f, day) });
    await expect(f.vaults.heartbeat(alice, vault.id, skewed)).resolves.toBeDefined();
  });

  it("refuses a receipt issued in 2019 that claims to expire in 2099 (older than FEE_RECEIPT_MAX_AGE_SECONDS)", async () => {
    f = await VaultFixture.open({ FEE_RECEIPT_MAX_AGE_SECONDS: String(30 * day) });
    const vault = await f.create(alice);
    const ancient = f.receipt("0.50", {
      issued_at: "2019-01-01T00:00:00.000Z",
      expires_at: "2099-01-01T00:00:00.000Z",
    });
    await expect(f.vaults.heartbeat(alice, vault.id, ancient)).rejects.toMatchObject({
      reason: "fee_receipt_expired",
      message: expect.stringContaining(`more than ${30 * day} s ago`),
    });
    const young = f.receipt("0.50", { issued_at: at(f, -29 * day), expires_at: at(f, day) });
    await expect(f.vaults.heartbeat(alice, vault.id, young)).resolves.toBeDefined();
  });

  it("refuses a receipt that expires before it was issued", async () => {
    f = await VaultFixture.open();
    const vault = await f.create(alice);
    const inverted = f.receipt("0.50", { issued_at: at(f, 30), expires_at: at(f, 20) });
    await expect(f.vaults.heartbeat(alice, vault.id, inverted)).rejects.toMatchObject({
      reason: "fee_receipt_invalid",
      message: expect.stringContaining("not after it was issued"),
    });
  });
});

describe("fee receipts' payload", () => {
  it("refuses a signed payload naming amount twice (JSON.parse would read the last, 5.00)", async () => {
    f = await VaultFixture.open();
    const vault = await f.create(alice);
    const { amount: _, ...rest } = f.payload("0.01");
    const text = JSON.stringify(rest).replace(/^\{/, '{"amount":"0.01","amount":"5.00",');
    await expect(f.vaults.heartbeat(alice, vault.id, rawReceipt(text, f.issuer))).rejects.toMatchObject({
      reason: "fee_receipt_invalid",
    });
    expect(await f.rows("SELECT id FROM fee_receipts")).toEqual([]);
  });
});

describe("fee receipt ids", () => {
  it("are per issuer: one trusted issuer's id cannot consume another's receipt of the same id", async () => {
    const shop = randomSigner();
    const other = randomSigner();
    f = await VaultFixture.open({ FEE_ISSUER_PUBLIC_KEYS: `${shop.publicKey},${other.publicKey}` });
    const vault = await f.create(alice);
    const id = "rcp_01JD3X7R2A8B4C6D8E0F2G4H6J";
    await f.vaults.heartbeat(alice, vault.id, f.receipt("0.50", { id }, other));
    await expect(f.vaults.heartbeat(alice, vault.id, f.receipt("0.50", { id }, shop))).resolves.toBeDefined();
    // Each issuer's own id is still single-use.
    await expect(f.vaults.heartbeat(alice, vault.id, f.receipt("0.50", { id }, shop))).rejects.toMatchObject({
      code: "conflict",
      reason: "fee_receipt_used",
    });
    const used = await f.rows<{ id: string }>("SELECT id FROM fee_receipts ORDER BY id");
    expect(used.map((r) => r.id).sort()).toEqual(
      [`${other.publicKey}/${id}`, `${shop.publicKey}/${id}`].sort(),
    );
  });
});

describe("a receipt used before ids were kept per issuer", () => {
  it.each([sqlite, postgres])("is not spent a second time under its new key ($name)", async (engine) => {
    f = await VaultFixture.open({}, engine);
    const vault = await f.create(alice);
    const receipt = f.receipt("0.50");
    const payload = JSON.parse(Buffer.from(receipt.split(".")[1]!, "base64url").toString()) as { id: string };
    // As the upgrade found it: recorded by its bare id.
    await f.rows(
      "INSERT INTO fee_receipts (id, amount, currency, recipient, used_at, used_for) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
      payload.id,
      "0.50",
      "USD",
      "x",
      engine.name === "sqlite" ? "2026-01-01T00:00:00.000Z" : new Date("2026-01-01T00:00:00.000Z"),
      "heartbeat before the upgrade",
    );
    await expect(f.vaults.heartbeat(alice, vault.id, receipt)).rejects.toMatchObject({
      reason: "fee_receipt_used",
    });
  });
});
