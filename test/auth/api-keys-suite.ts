import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ApiKeys } from "../../server/auth/api-keys.js";
import { hashKey } from "../../server/auth/key-format.js";
import { ManualClock } from "../../server/clock.js";
import { ServiceError } from "../../server/errors.js";
import type { Store } from "../../server/store/store.js";
import type { TestDatabase, TestEngine } from "../store/engines.js";

/** API keys on a database engine. */
export function apiKeysSuite(engine: TestEngine) {
  describe(engine.name, () => {
    let db: TestDatabase;
    let store: Store;
    let clock: ManualClock;
    let keys: ApiKeys;

    beforeEach(async () => {
      db = await engine.create();
      store = await db.open();
      clock = new ManualClock();
      keys = new ApiKeys(store.auth, clock, 10_000);
    });
    afterEach(() => db.drop());

    /** The reason a rejected verification gives, so all rejections can be compared. */
    async function rejection(presented: string): Promise<unknown> {
      const err = await keys.verify(presented).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      const { code, reason, message } = err as ServiceError;
      return { code, reason, message };
    }

    const invalid = { code: "unauthenticated", reason: "invalid_api_key", message: "API key is not valid" };

    describe("ApiKeys", () => {
      it("issues a key bound to a new account and a tier, and verifies it", async () => {
        const issued = await keys.create({ tier: "premium", name: "ci" });
        expect(issued.accountId).toMatch(/^acc_[0-9A-Z]{26}$/);
        const found = await keys.verify(issued.key);
        expect(found).toMatchObject({
          id: issued.keyId,
          accountId: issued.accountId,
          tier: "premium",
          name: "ci",
        });
      });

      it("adds further keys to an existing account, and refuses an unknown one", async () => {
        const first = await keys.create({ tier: "authenticated" });
        const second = await keys.create({ tier: "internal", accountId: first.accountId });
        expect(second.accountId).toBe(first.accountId);
        expect(second.keyId).not.toBe(first.keyId);
        await expect(keys.create({ tier: "premium", accountId: "acc_unknown" })).rejects.toMatchObject({
          code: "not_found",
        });
      });

      it("stores only the hash: the key text appears nowhere in the database", async () => {
        const issued = await keys.create({ tier: "authenticated" });
        const all = await db.contents();
        expect(all.includes(hashKey(issued.key))).toBe(true);
        expect(all.includes(issued.key)).toBe(false);
        expect(all.includes(issued.key.slice(21))).toBe(false);
      });

      it("answers one and the same error for a malformed, an unknown, a mismatched and a revoked key", async () => {
        const issued = await keys.create({ tier: "authenticated" });
        const mismatched = `${issued.key.slice(0, 21)}${"A".repeat(31)}`;
        const unknown = `svc_live_${"B".repeat(43)}`;
        const wrongEnvironment = issued.key.replace("svc_live_", "svc_test_");
        for (const presented of ["nonsense", `${issued.key}x`, unknown, mismatched, wrongEnvironment]) {
          expect(await rejection(presented)).toEqual(invalid);
        }
        await keys.revoke(issued.keyId);
        expect(await rejection(issued.key)).toEqual(invalid);
      });

      it("revokes once, reports a second revocation, and refuses an unknown id", async () => {
        const issued = await keys.create({ tier: "authenticated" });
        expect(await keys.revoke(issued.keyId)).toBe("revoked");
        expect(await keys.revoke(issued.keyId)).toBe("already_revoked");
        await expect(keys.revoke("key_doesnotexist")).rejects.toMatchObject({ code: "not_found" });
        const [listed] = await keys.list();
        expect(listed).toMatchObject({ id: issued.keyId, revokedAt: clock.now() });
        expect(listed).not.toHaveProperty("secretHash");
      });

      it("sees a revocation made by another process once its cache entry expires", async () => {
        const issued = await keys.create({ tier: "authenticated" });
        await keys.verify(issued.key);
        const elsewhere = new ApiKeys(store.auth, clock);
        await elsewhere.revoke(issued.keyId);
        clock.advance(9_999);
        await expect(keys.verify(issued.key)).resolves.toMatchObject({ id: issued.keyId });
        clock.advance(2);
        expect(await rejection(issued.key)).toEqual(invalid);
      });

      it("does not cache a mismatch: the right key still works after a wrong one with the same id", async () => {
        const issued = await keys.create({ tier: "authenticated" });
        await rejection(`${issued.key.slice(0, 21)}${"A".repeat(31)}`);
        await expect(keys.verify(issued.key)).resolves.toMatchObject({ id: issued.keyId });
      });
    });
  });
}
