import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestEngine } from "../store/engines.js";
import { randomSigner, VaultFixture } from "./fixture.js";

const alice = "acc_alice";
const bob = "acc_bob";

/** Vault fees on a database engine: heartbeat, batch and creation fees, receipts used once. */
export function feesSuite(engine: TestEngine) {
  describe(engine.name, () => {
    let f: VaultFixture;
    beforeEach(async () => {
      f = await VaultFixture.open({}, engine);
    });
    afterEach(() => f.close());

    const receiptsUsed = () => f.rows("SELECT id, amount, used_for FROM fee_receipts");

    describe("heartbeat fees", () => {
      it("charges heartbeat_fee, reports it and counts it in the totals exactly", async () => {
        const vault = await f.create(alice);
        await f.vaults.heartbeat(alice, vault.id, f.receipt("0.50"));
        await f.vaults.heartbeat(alice, vault.id, f.receipt("0.7"));
        const stats = await f.domain.deps.repo.stats("USDC");
        expect(stats).toMatchObject({ heartbeats: 2, feesCollected: "1.20" });
      });

      it("refuses a replayed receipt (409 fee_receipt_used) and leaves the vault as it was", async () => {
        const a = await f.create(alice);
        const b = await f.create(alice);
        const receipt = f.receipt("0.50");
        await f.vaults.heartbeat(alice, a.id, receipt);
        await expect(f.vaults.heartbeat(alice, b.id, receipt)).rejects.toMatchObject({
          code: "conflict",
          reason: "fee_receipt_used",
        });
        expect((await f.vaults.get(alice, b.id)).heartbeatCount).toBe(0);
        expect(f.eventsOf("vault_heartbeat")).toHaveLength(1);
        expect(await receiptsUsed()).toHaveLength(1);
      });

      const unacceptable: [string, () => string, string][] = [
        ["an underpaid receipt", () => f.receipt("0.49"), "fee_insufficient"],
        [
          "a receipt signed by an untrusted key",
          () => f.receipt("0.50", {}, randomSigner()),
          "fee_receipt_invalid",
        ],
        [
          "a receipt in another currency",
          () => f.receipt("0.50", { currency: "EURC" }),
          "fee_receipt_mismatch",
        ],
        [
          "a receipt to another recipient",
          () => f.receipt("0.50", { recipient: "0xdead" }),
          "fee_receipt_mismatch",
        ],
        [
          "an expired receipt",
          () => f.receipt("0.50", { expires_at: new Date(f.clock.now().getTime() - 1).toISOString() }),
          "fee_receipt_expired",
        ],
        ["a receipt with a tampered payload", () => tamper(f.receipt("0.50")), "fee_receipt_invalid"],
        ["text that is no receipt", () => "rcpt1.abc.def", "fee_receipt_invalid"],
      ];

      it.each(unacceptable)(
        "refuses %s (422 %s) without renewing or recording it",
        async (_name, make, reason) => {
          const vault = await f.create(alice);
          await expect(f.vaults.heartbeat(alice, vault.id, make())).rejects.toMatchObject({
            code: "unprocessable",
            reason,
          });
          expect((await f.vaults.get(alice, vault.id)).heartbeatCount).toBe(0);
          expect(await receiptsUsed()).toEqual([]);
        },
      );

      it("refuses an amount of 10^15 or more (422), so no receipt can swamp the totals (issue #21)", async () => {
        const vault = await f.create(alice);
        const huge = "999999999999999999999999999999.999999999999999999";
        await expect(f.vaults.heartbeat(alice, vault.id, f.receipt(huge))).rejects.toMatchObject({
          reason: "fee_receipt_invalid",
          message: expect.stringContaining("below 10^15 with at most 18 decimals"),
        });
        await expect(
          f.vaults.heartbeat(alice, vault.id, f.receipt("1000000000000000")),
        ).rejects.toMatchObject({
          reason: "fee_receipt_invalid",
        });
        expect(await receiptsUsed()).toEqual([]);
      });

      it("sums the largest receipts exactly, past what one amount may be", async () => {
        const vault = await f.create(alice);
        const largest = "999999999999999.999999999999999999";
        for (let i = 0; i < 3; i++) await f.vaults.heartbeat(alice, vault.id, f.receipt(largest));
        expect(await f.domain.deps.repo.stats("USDC")).toMatchObject({
          heartbeats: 3,
          feesCollected: "2999999999999999.999999999999999997",
        });
        await f.vaults.heartbeat(alice, vault.id, f.receipt("0.50"));
        expect((await f.domain.deps.repo.stats("USDC")).feesCollected).toBe(
          "3000000000000000.499999999999999997",
        );
      });

      it("counts parallel heartbeats of one vault from two instances once each (issue #21)", async () => {
        const twin = await f.twin();
        try {
          const vault = await f.create(alice);
          const instances = [f, twin];
          await Promise.all(
            Array.from({ length: 40 }, (_, i) => {
              const on = instances[i % 2]!;
              return on.vaults.heartbeat(alice, vault.id, on.receipt("0.75"));
            }),
          );
          expect((await f.vaults.get(alice, vault.id)).heartbeatCount).toBe(40);
          expect(await f.domain.deps.repo.stats("USDC")).toMatchObject({
            heartbeats: 40,
            feesCollected: "30.00",
          });
        } finally {
          await twin.close();
        }
      });

      it("says what the receipt covers and what it should", async () => {
        const vault = await f.create(alice);
        await expect(f.vaults.heartbeat(alice, vault.id, f.receipt("0.1"))).rejects.toThrow(
          "fee receipt covers 0.10 USDC; a heartbeat costs 0.50 USDC",
        );
      });

      it("expires a receipt exactly at expires_at", async () => {
        const vault = await f.create(alice);
        const receipt = f.receipt("0.50", {
          expires_at: new Date(f.clock.now().getTime() + 1000).toISOString(),
        });
        f.advance(1);
        await expect(f.vaults.heartbeat(alice, vault.id, receipt)).rejects.toMatchObject({
          reason: "fee_receipt_expired",
        });
      });
    });

    describe("batch heartbeat", () => {
      it("renews what it can, reports the rest in order, and charges n × fee × (1 − discount)", async () => {
        const a = await f.create(alice);
        const b = await f.create(alice, { allowManualRelease: true });
        const c = await f.create(alice);
        const theirs = await f.create(bob);
        await f.vaults.release(alice, b.id, "r");
        const unknown = "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M";
        // 5 distinct ids listed: 5 × 0.50 × 0.90 = 2.25
        const ids = [a.id, b.id, c.id, a.id, theirs.id, unknown];
        await expect(f.vaults.batchHeartbeat(alice, ids, f.receipt("2.249"))).rejects.toMatchObject({
          reason: "fee_insufficient",
          message: "fee receipt covers 2.249 USDC; this batch of 5 vaults costs 2.25 USDC",
        });
        f.advance(100);
        const outcome = await f.vaults.batchHeartbeat(alice, ids, f.receipt("2.25"));
        expect(outcome.renewed.map((r) => r.vault.id)).toEqual([a.id, c.id]);
        expect(outcome.renewed[0]!.vault.deadline.getTime()).toBe(f.clock.now().getTime() + 7 * 86_400_000);
        expect(outcome.failed).toEqual([
          { vaultId: b.id, code: "not_active", detail: `vault ${b.id} is released` },
          { vaultId: a.id, code: "duplicate", detail: `vault ${a.id} was listed before` },
          { vaultId: theirs.id, code: "not_found", detail: `vault ${theirs.id} not found` },
          { vaultId: unknown, code: "not_found", detail: `vault ${unknown} not found` },
        ]);
        expect(outcome.renewed.length + outcome.failed.length).toBe(ids.length);
        expect(f.eventsOf("vault_heartbeat").map((e) => e.scope.vaultId)).toEqual([a.id, c.id]);
        expect((await f.vaults.get(bob, theirs.id)).heartbeatCount).toBe(0);
        expect(await f.domain.deps.repo.stats("USDC")).toMatchObject({
          heartbeats: 2,
          feesCollected: "2.25",
        });
      });

      it("keeps the receipt unused when no vault could be renewed", async () => {
        const theirs = await f.create(bob);
        const receipt = f.receipt("0.50");
        const outcome = await f.vaults.batchHeartbeat(alice, [theirs.id], receipt);
        expect(outcome).toMatchObject({ renewed: [], failed: [{ code: "not_found" }] });
        expect(await receiptsUsed()).toEqual([]);
        const mine = await f.create(alice);
        await expect(f.vaults.batchHeartbeat(alice, [mine.id], receipt)).resolves.toMatchObject({
          failed: [],
        });
      });

      it("gives no discount to a batch of one vault (issue #21)", async () => {
        const a = await f.create(alice);
        await expect(f.vaults.batchHeartbeat(alice, [a.id, a.id], f.receipt("0.45"))).rejects.toMatchObject({
          reason: "fee_insufficient",
          message: "fee receipt covers 0.45 USDC; this batch of 1 vault costs 0.50 USDC",
        });
        await f.vaults.batchHeartbeat(alice, [a.id, a.id], f.receipt("0.50"));
        expect(await f.domain.deps.repo.stats("USDC")).toMatchObject({
          heartbeats: 1,
          feesCollected: "0.50",
        });
      });

      it("refuses a replayed receipt as a whole (409)", async () => {
        const a = await f.create(alice);
        const receipt = f.receipt("0.50");
        await f.vaults.batchHeartbeat(alice, [a.id], receipt);
        await expect(f.vaults.batchHeartbeat(alice, [a.id], receipt)).rejects.toMatchObject({
          reason: "fee_receipt_used",
        });
        expect((await f.vaults.get(alice, a.id)).heartbeatCount).toBe(1);
      });

      it("refuses more ids than MAX_BATCH_HEARTBEAT (400)", async () => {
        const small = await VaultFixture.open({ MAX_BATCH_HEARTBEAT: "2" }, engine);
        try {
          const ids = [
            "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3A",
            "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3B",
            "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3C",
          ];
          await expect(small.vaults.batchHeartbeat(alice, ids, small.receipt("10"))).rejects.toMatchObject({
            reason: "validation_failed",
            fieldErrors: [{ path: "/body/vault_ids" }],
          });
        } finally {
          await small.close();
        }
      });
    });

    describe("creation fee", () => {
      it("is free by default: no receipt needed, a receipt sent is not consumed", async () => {
        const receipt = f.receipt("1.00");
        await f.create(alice, { feeReceipt: receipt });
        expect(await receiptsUsed()).toEqual([]);
      });

      it("when above 0, needs a covering receipt, recorded with the vault", async () => {
        const paid = await VaultFixture.open({ VAULT_CREATE_FEE: "1.5" }, engine);
        try {
          await expect(paid.create(alice)).rejects.toMatchObject({
            code: "unprocessable",
            reason: "fee_insufficient",
          });
          await expect(paid.create(alice, { feeReceipt: paid.receipt("1.49") })).rejects.toMatchObject({
            reason: "fee_insufficient",
          });
          const receipt = paid.receipt("1.50");
          const vault = await paid.create(alice, { feeReceipt: receipt });
          await expect(paid.create(alice, { feeReceipt: receipt })).rejects.toMatchObject({
            reason: "fee_receipt_used",
          });
          expect(await paid.domain.deps.repo.stats("USDC")).toMatchObject({
            total: 1,
            feesCollected: "1.50",
          });
          expect(await paid.rows("SELECT used_for FROM fee_receipts")).toEqual([
            { used_for: `create ${vault.id}` },
          ]);
        } finally {
          await paid.close();
        }
      });
    });
  });
}

/** Flips a character of the payload, keeping the signature: the signature no longer matches. */
function tamper(receipt: string): string {
  const [prefix, payload, signature] = receipt.split(".");
  const json = Buffer.from(payload!, "base64url").toString().replace('"0.50"', '"5.00"');
  return `${prefix}.${Buffer.from(json).toString("base64url")}.${signature}`;
}
