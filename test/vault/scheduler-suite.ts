import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TestEngine } from "../store/engines.js";
import { VaultFixture } from "./fixture.js";

const alice = "acc_alice";
const hour = 3600;
const day = 24 * hour;

/** The vault scheduler on a database engine: expiry, warnings, retention burns, instances side by side. */
export function schedulerSuite(engine: TestEngine) {
  describe(engine.name, () => {
    let f: VaultFixture;
    beforeEach(async () => {
      f = await VaultFixture.open({}, engine);
    });
    afterEach(() => f.close());

    const tick = () => f.domain.scheduler.tick();

    describe("expiry", () => {
      it("expires an active vault at its deadline, not a millisecond before, and announces it once", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: 2 * day });
        f.clock.set(new Date(vault.deadline.getTime() - 1));
        await tick();
        expect(f.eventsOf("vault_expired")).toEqual([]);
        f.clock.set(vault.deadline);
        await tick();
        await tick();
        expect(f.eventsOf("vault_expired")).toEqual([
          {
            type: "vault_expired",
            scope: { accountId: alice, vaultId: vault.id },
            data: {
              vaultId: vault.id,
              expiredAt: vault.deadline.toISOString(),
              deadline: vault.deadline.toISOString(),
            },
          },
        ]);
        expect(await f.vaults.get(alice, vault.id)).toMatchObject({
          state: "expired",
          releasedAt: vault.deadline,
        });
      });

      it("does not expire a vault a heartbeat renewed", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: day });
        f.advance(day - 1);
        await f.vaults.heartbeat(alice, vault.id, f.receipt("0.50"));
        f.advance(2);
        await tick();
        expect(f.eventsOf("vault_expired")).toEqual([]);
        expect((await f.vaults.get(alice, vault.id)).state).toBe("active");
      });

      it("leaves released and burned vaults alone", async () => {
        const released = await f.create(alice, { heartbeatDeadline: 60, allowManualRelease: true });
        const burned = await f.create(alice, { heartbeatDeadline: 60 });
        await f.vaults.release(alice, released.id, "r");
        await f.vaults.burn(alice, burned.id, "b");
        f.advance(120);
        await tick();
        expect(f.eventsOf("vault_expired")).toEqual([]);
      });
    });

    describe("deadline warning", () => {
      it("is emitted once per deadline, VAULT_WARNING_LEAD_SECONDS before it, with whole hours remaining", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: 3 * day });
        f.advance(2 * day - 1);
        await tick();
        expect(f.eventsOf("vault_deadline_warning")).toEqual([]);
        f.advance(1);
        await tick();
        f.advance(hour);
        await tick();
        expect(f.eventsOf("vault_deadline_warning")).toEqual([
          {
            type: "vault_deadline_warning",
            scope: { accountId: alice, vaultId: vault.id },
            data: {
              vaultId: vault.id,
              deadline: vault.deadline.toISOString(),
              hoursRemaining: 24,
              state: "active",
            },
          },
        ]);
      });

      it("is emitted again for the new deadline after a heartbeat", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: 2 * day });
        f.advance(day + hour);
        await tick();
        const renewed = await f.vaults.heartbeat(alice, vault.id, f.receipt("0.50"));
        await tick();
        f.advance(day + 30 * 60);
        await tick();
        await tick();
        expect(f.eventsOf("vault_deadline_warning").map((e) => e.data)).toEqual([
          { vaultId: vault.id, deadline: vault.deadline.toISOString(), hoursRemaining: 23, state: "active" },
          {
            vaultId: vault.id,
            deadline: renewed.vault.deadline.toISOString(),
            hoursRemaining: 23,
            state: "active",
          },
        ]);
      });

      it("is not emitted for a deadline already passed (the vault expires instead)", async () => {
        await f.create(alice, { heartbeatDeadline: 60 });
        f.advance(61);
        await tick();
        expect(f.eventsOf("vault_deadline_warning")).toEqual([]);
        expect(f.eventsOf("vault_expired")).toHaveLength(1);
      });

      it("is turned off by VAULT_WARNING_LEAD_SECONDS=0", async () => {
        const quiet = await VaultFixture.open({ VAULT_WARNING_LEAD_SECONDS: "0" }, engine);
        try {
          await quiet.create(alice, { heartbeatDeadline: 120 });
          quiet.advance(119);
          await quiet.domain.scheduler.tick();
          expect(quiet.eventsOf("vault_deadline_warning")).toEqual([]);
        } finally {
          await quiet.close();
        }
      });
    });

    describe("retention burn", () => {
      const retention = 30 * day;

      it("burns a released vault whose key nobody retrieved within VAULT_RETENTION_SECONDS", async () => {
        const vault = await f.create(alice, { allowManualRelease: true });
        await f.vaults.release(alice, vault.id, "r");
        f.advance(retention - 1);
        await tick();
        expect(f.eventsOf("vault_burned")).toEqual([]);
        f.advance(1);
        await tick();
        expect(f.eventsOf("vault_burned").map((e) => e.data)).toEqual([
          {
            vaultId: vault.id,
            burnedAt: f.clock.now().toISOString(),
            reason: "retention_expired",
            cause: "retention_expired",
          },
        ]);
        expect(await f.vaults.get(alice, vault.id)).toMatchObject({
          state: "burned",
          burnReason: "retention_expired",
          burnNote: null,
        });
        expect(await f.rows("SELECT encrypted_key FROM vaults")).toEqual([{ encrypted_key: null }]);
        expect(await f.domain.deps.repo.stats("USDC")).toMatchObject({ burns: 1, releases: 1, active: 0 });
      });

      it("counts retention from the deadline for an expired vault, and keeps a retrieved key", async () => {
        const unread = await f.create(alice, { heartbeatDeadline: day });
        const read = await f.create(alice, { heartbeatDeadline: day });
        f.advance(day);
        await f.vaults.retrieve(alice, read.id, f.proof(read.id));
        f.advance(retention);
        await tick();
        expect(f.eventsOf("vault_burned").map((e) => e.scope.vaultId)).toEqual([unread.id]);
        expect((await f.vaults.get(alice, read.id)).state).toBe("expired");
      });

      it("applies a due burn before a retrieval even between ticks", async () => {
        const vault = await f.create(alice, { heartbeatDeadline: day });
        f.advance(day + retention);
        await expect(f.vaults.retrieve(alice, vault.id, f.proof(vault.id))).rejects.toMatchObject({
          reason: "vault_not_retrievable",
        });
        expect(f.eventsOf("vault_expired")).toHaveLength(1);
        expect(f.eventsOf("vault_burned")).toHaveLength(1);
      });
    });

    describe("two instances on one store", () => {
      it("expire, warn and burn each vault once between them", async () => {
        const twin = await f.twin();
        twin.clock.set(f.clock.now());
        const vaults = [];
        for (let i = 0; i < 40; i++) vaults.push(await f.create(alice, { heartbeatDeadline: day + i * 60 }));
        for (const at of [day / 2 + 60, 2 * day, 40 * day]) {
          f.clock.set(new Date(Date.parse("2026-01-01T00:00:00.000Z") + at * 1000));
          twin.clock.set(f.clock.now());
          await Promise.all([tick(), twin.domain.scheduler.tick(), tick(), twin.domain.scheduler.tick()]);
        }
        for (const type of ["vault_deadline_warning", "vault_expired", "vault_burned"] as const) {
          const ids = [...f.eventsOf(type), ...twin.eventsOf(type)].map((e) => e.scope.vaultId).sort();
          expect(ids, type).toEqual(vaults.map((v) => v.id).sort());
        }
        await twin.close();
      });
    });

    describe("the timer", () => {
      afterEach(() => {
        vi.useRealTimers();
      });

      it("calls tick() every VAULT_SCHEDULER_INTERVAL_MS until stopped", async () => {
        vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
        const timed = await VaultFixture.open({ VAULT_SCHEDULER_INTERVAL_MS: "1000" }, engine);
        try {
          const spy = vi.spyOn(timed.domain.scheduler, "tick");
          timed.domain.scheduler.start();
          vi.advanceTimersByTime(999);
          expect(spy).not.toHaveBeenCalled();
          vi.advanceTimersByTime(1);
          expect(spy).toHaveBeenCalledTimes(1);
          await timed.domain.scheduler.stop();
          vi.advanceTimersByTime(5000);
          expect(spy).toHaveBeenCalledTimes(1);
        } finally {
          await timed.close();
        }
      });
    });
  });
}
