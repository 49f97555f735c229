import { describe, expect, it } from "vitest";
import type { Store } from "../../server/store/store.js";
import type { FeePayment, VaultRecord } from "../../server/vault/vault-repository.js";

const t0 = new Date("2026-01-01T00:00:00.000Z");
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

export function newVault(id: string, overrides: Partial<VaultRecord> = {}): VaultRecord {
  return {
    id,
    accountId: "acc_1",
    state: "active",
    recipientPublicKey: `ed25519:${"ab".repeat(32)}`,
    heartbeatDeadline: 3600,
    allowManualRelease: false,
    contentUris: [],
    metadata: {},
    createdAt: t0,
    deadline: at(3600),
    lastHeartbeat: null,
    heartbeatCount: 0,
    groupId: null,
    groupInterval: null,
    releasedAt: null,
    releaseReason: null,
    retrievedAt: null,
    burnedAt: null,
    burnReason: null,
    burnNote: null,
    version: 0,
    ...overrides,
  };
}

const payment = (receiptId: string, amount: string): FeePayment => ({
  receiptId,
  amount,
  currency: "USDC",
  recipient: "r",
  usedAt: t0,
  usedFor: "test",
});

const id = (n: number) => `vlt_01JD3Y2B8C4D6E7F9G0H1J2K${String(n).padStart(2, "0")}`;

/** The contract of `store.vaults` every Store implementation must meet (SQLite now, PostgreSQL later). */
export function vaultRepositorySuite(open: () => Promise<Store>) {
  describe("the vault repository", () => {
    it("writes a batch of changes and its receipt all or nothing", async () => {
      const { vaults } = await open();
      await vaults.insert(newVault(id(1)), "a2V5");
      await vaults.insert(newVault(id(2)), "a2V5");
      const stale = await vaults.update(
        [
          { id: id(1), version: 0, set: { heartbeatCount: 1 } },
          { id: id(2), version: 7, set: { heartbeatCount: 1 } },
        ],
        payment("rcp_a", "1"),
      );
      expect(stale).toBe("stale");
      expect((await vaults.find(id(1)))?.heartbeatCount).toBe(0);
      expect((await vaults.stats("USDC")).feesCollected).toBe("0.00");
      expect(
        await vaults.update([{ id: id(1), version: 0, set: { heartbeatCount: 1 } }], payment("rcp_a", "1")),
      ).toBe("applied");
      expect(
        await vaults.update([{ id: id(2), version: 0, set: { heartbeatCount: 1 } }], payment("rcp_a", "1")),
      ).toBe("receipt_used");
      expect((await vaults.find(id(2)))?.heartbeatCount).toBe(0);
      expect((await vaults.find(id(1)))?.version).toBe(1);
    });

    it("sums receipt amounts exactly across scales", async () => {
      const { vaults } = await open();
      await vaults.insert(newVault(id(3)), "a2V5");
      const amounts = ["0.1", "0.2", "0.000000000000000001", "1000000000000"];
      for (const [i, amount] of amounts.entries()) {
        const vault = await vaults.find(id(3));
        await vaults.update(
          [{ id: id(3), version: vault!.version, set: {} }],
          payment(`rcp_sum_${i}`, amount),
        );
      }
      expect((await vaults.stats("USDC")).feesCollected).toBe("1000000000000.300000000000000001");
      expect((await vaults.stats("EURC")).feesCollected).toBe("0.00");
    });

    it("claims each due vault once, optionally only the ids given", async () => {
      const { vaults } = await open();
      await vaults.insert(newVault(id(4), { deadline: at(10) }), "a2V5");
      await vaults.insert(newVault(id(5), { deadline: at(20) }), "a2V5");
      await vaults.insert(newVault(id(6), { deadline: at(30) }), "a2V5");
      const claim = { from: ["active" as const], to: "expired" as const, limit: 10 };
      expect(await vaults.claimExpired({ ...claim, now: at(25), ids: [id(5)] })).toMatchObject([
        { id: id(5) },
      ]);
      const claimed = await vaults.claimExpired({ ...claim, now: at(25) });
      expect(claimed.map((v) => [v.id, v.state, v.releasedAt])).toEqual([[id(4), "expired", at(10)]]);
      expect(await vaults.claimExpired({ ...claim, now: at(25) })).toEqual([]);
      expect(await vaults.claimWarnings({ now: at(25), warnUntil: at(40), limit: 10 })).toMatchObject([
        { id: id(6) },
      ]);
      expect(await vaults.claimWarnings({ now: at(26), warnUntil: at(40), limit: 10 })).toEqual([]);
    });

    it("erases the key when burning for retention, and never for a retrieved vault", async () => {
      const { vaults } = await open();
      await vaults.insert(newVault(id(7), { deadline: at(0) }), "a2V5");
      await vaults.insert(newVault(id(8), { deadline: at(0) }), "a2V5");
      await vaults.claimExpired({
        from: ["active"],
        to: "expired",
        limit: 10,
        now: at(1),
        ids: [id(7), id(8)],
      });
      const read = await vaults.find(id(8));
      const proof = { digest: "d1", expiresAt: at(300) };
      const retrieved = await vaults.retrieve(
        { id: id(8), version: read!.version, set: { retrievedAt: at(1) } },
        proof,
      );
      expect(retrieved).toEqual({ outcome: "applied", encryptedKey: "a2V5" });
      const again = await vaults.retrieve(
        { id: id(8), version: read!.version + 1, set: { retrievedAt: at(1) } },
        proof,
      );
      expect(again).toEqual({ outcome: "proof_used" });
      const burned = await vaults.claimRetentionBurns({
        from: ["released", "expired"],
        to: "burned",
        limit: 10,
        now: at(100),
        releasedBefore: at(50),
      });
      expect(burned.map((v) => [v.id, v.state, v.burnReason])).toEqual([
        [id(7), "burned", "retention_expired"],
      ]);
      const stale = await vaults.retrieve(
        { id: id(7), version: 1, set: {} },
        { digest: "d2", expiresAt: at(300) },
      );
      expect(stale).toEqual({ outcome: "stale" });
    });

    it("creates a group only if every member is unchanged and in no group", async () => {
      const { vaults } = await open();
      await vaults.insert(newVault(id(9)), "a2V5");
      const group = {
        id: "grp_01JD3Z0A1B2C3D4E5F6G7H8J9K",
        accountId: "acc_1",
        name: "g",
        interval: 60,
        createdAt: t0,
        vaultIds: [id(9)],
      };
      expect(await vaults.insertGroup(group, [{ id: id(9), version: 3 }])).toBe("stale");
      expect((await vaults.find(id(9)))?.groupId).toBeNull();
      expect(await vaults.insertGroup(group, [{ id: id(9), version: 0 }])).toBe("applied");
      expect(await vaults.find(id(9))).toMatchObject({ groupId: group.id, groupInterval: 60 });
    });

    it("lists newest first, created_at then id, with exact totals", async () => {
      const { vaults } = await open();
      for (const n of [10, 12, 11])
        await vaults.insert(newVault(id(n), { accountId: "acc_list", createdAt: at(5) }), "a2V5");
      await vaults.insert(newVault(id(13), { accountId: "acc_list", createdAt: at(1) }), "a2V5");
      const page = await vaults.list({ accountId: "acc_list", limit: 3, offset: 0 });
      expect(page.items.map((v) => v.id)).toEqual([id(12), id(11), id(10)]);
      expect(page.total).toBe(4);
    });
  });
}
