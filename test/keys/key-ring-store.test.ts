import { randomBytes } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { atRestCipher } from "../../server/keys/at-rest-cipher.js";
import { joinTsaCertificate } from "../../server/keys/join-key-ring.js";
import {
  generateEd25519,
  newRingKey,
  ringPrivateKey,
  ringPrivateKeyDer,
  SINCE_EVER,
} from "../../server/keys/key-ring.js";
import type { StoredRingKey } from "../../server/keys/key-ring-repository.js";
import { CLOCK_MARGIN_MS } from "../../server/keys/ring-changes.js";
import { freshTsaCredentials, newTsaRingKey } from "../../server/keys/tsa-keys.js";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { postgres, sqlite, type TestDatabase } from "../store/engines.js";

const atRest = atRestCipher(randomBytes(32));

/** Makes every update that revokes a ring key fail, as a database cut off in the middle would. */
async function failRevokedUpdates(db: TestDatabase): Promise<void> {
  if (db.engine === "sqlite") {
    (
      (await db.open()) as SqliteStore
    ).db.exec(`CREATE TRIGGER no_revocation BEFORE UPDATE OF state ON key_ring WHEN NEW.state = 'revoked'
      BEGIN SELECT RAISE(ABORT, 'no revocation here'); END`);
    return;
  }
  await db.rows(`CREATE FUNCTION no_revocation() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'no revocation here'; END $$`);
  await db.rows(`CREATE TRIGGER no_revocation BEFORE UPDATE ON key_ring FOR EACH ROW
    WHEN (NEW.state = 'revoked') EXECUTE FUNCTION no_revocation()`);
}
const at = (iso: string) => new Date(iso);
const serviceKey = (notBefore = SINCE_EVER) =>
  newRingKey("service", generateEd25519(), atRest, { notBefore });

for (const engine of [sqlite, postgres]) {
  describe(`the key ring on ${engine.name}`, () => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await engine.create();
    });
    afterEach(() => db.drop());

    it("keeps one active key per kind when instances register at once", async () => {
      const stores = await Promise.all([db.open(), db.open(), db.open()]);
      const keys = stores.map(() => serviceKey());
      const added = await Promise.all(stores.map((store, i) => store.keyRing.register(keys[i]!)));
      expect(added.filter(Boolean)).toHaveLength(1);
      const ring = await stores[0]!.keyRing.list();
      expect(ring).toHaveLength(1);
      expect(ring[0]).toEqual(keys[added.indexOf(true)]);
    });

    it("seals in the key of a TSA registered without one, from the instance whose tsa.pem holds it", async () => {
      const store = await db.open();
      const file = await freshTsaCredentials(new Date(), true);
      const entry = newTsaRingKey(file, atRest, SINCE_EVER);
      await store.keyRing.register({ ...entry, sealedPrivateKey: null });
      await joinTsaCertificate(store.keyRing, atRest, file);
      const [sealed] = await store.keyRing.list();
      expect(ringPrivateKeyDer(sealed!, atRest)).toEqual(ringPrivateKeyDer(entry, atRest));
      // Once: a key the ring holds is never replaced.
      expect(await store.keyRing.sealPrivateKey("tsa", entry.keyId, randomBytes(60))).toBe(false);
      expect((await store.keyRing.list())[0]!.sealedPrivateKey).toEqual(sealed!.sealedPrivateKey);
    });

    it("rotates: the old key retired with the end of its period, the new one active from the change's time", async () => {
      const store = await db.open();
      const first = serviceKey();
      await store.keyRing.register(first);
      const second = serviceKey(SINCE_EVER);
      // A time ahead of the machine's: PostgreSQL takes the later of it and its own clock.
      const now = at("2030-05-01T00:00:00.000Z");
      const { active, retired } = await store.keyRing.rotate(second, { now: () => now, overlapMs: 60_000 });
      expect(retired).toEqual({ ...first, state: "retired", notAfter: at("2030-05-01T00:01:00.000Z") });
      expect(active).toEqual({ ...second, notBefore: now });
      expect(await store.keyRing.list()).toEqual([retired, active]);
      // Its private key comes back whole from the store.
      const [, stored] = await store.keyRing.list();
      expect(ringPrivateKey(stored!, atRest).export({ format: "jwk" }).d).toBeDefined();
    });

    it("dates a change no earlier than the database's clock", async () => {
      const store = await db.open();
      await store.keyRing.register(serviceKey());
      const before = Date.now();
      const { active } = await store.keyRing.rotate(serviceKey(), { now: () => new Date(), overlapMs: 0 });
      expect(active.notBefore.getTime()).toBeGreaterThanOrEqual(before);
    });

    it("lets two rotations of one kind at once leave exactly one active key", async () => {
      const [a, b] = await Promise.all([db.open(), db.open()]);
      await a.keyRing.register(serviceKey());
      const change = { now: () => at("2030-05-01T00:00:00.000Z"), overlapMs: 0 };
      await Promise.all([a.keyRing.rotate(serviceKey(), change), b.keyRing.rotate(serviceKey(), change)]);
      const states = (await a.keyRing.list()).map((k) => k.state).sort();
      expect(states).toEqual(["active", "retired", "retired"]);
    });

    it("revokes in one transaction every role of a key's material, handing the active ones to their replacements", async () => {
      const store = await db.open();
      // A deployment whose first start made its service key the log key too.
      const shared = generateEd25519();
      const service = newRingKey("service", shared, atRest, { notBefore: SINCE_EVER });
      const log = newRingKey("log", shared, atRest, { notBefore: SINCE_EVER, origin: "x.example/log" });
      await store.keyRing.register(service);
      await store.keyRing.register(log);
      const now = at("2030-05-01T00:00:00.000Z");
      const replacements = {
        service: serviceKey(),
        log: newRingKey("log", generateEd25519(), atRest, { notBefore: SINCE_EVER, origin: "x.example/log" }),
      };
      const revocation = { reason: "leaked", at: at("2030-04-01T12:00:00.000Z") };
      const outcome = await store.keyRing.revoke("service", service.keyId, revocation, {
        now: () => now,
        replacements,
      });
      expect(outcome?.at).toEqual(now);
      expect(outcome?.activated).toEqual([
        { ...replacements.log, notBefore: now },
        { ...replacements.service, notBefore: now },
      ]);
      // The old key's period ends CLOCK_MARGIN_MS after the change (a signer's clock may run ahead).
      const end = new Date(now.getTime() + CLOCK_MARGIN_MS);
      const ring = await store.keyRing.list();
      const state = (k: StoredRingKey) => [
        k.kind,
        k.keyId,
        k.state,
        k.notAfter,
        k.revokedAt,
        k.revocationReason,
      ];
      expect(ring.map(state)).toEqual([
        ["log", log.keyId, "revoked", end, revocation.at, "leaked"],
        ["service", service.keyId, "revoked", end, revocation.at, "leaked"],
        ["log", replacements.log.keyId, "active", null, null, null],
        ["service", replacements.service.keyId, "active", null, null, null],
      ]);
      expect(outcome?.revoked.map(state)).toEqual(ring.slice(0, 2).map(state));
      expect(
        await store.keyRing.revoke("service", "0000", revocation, { now: () => now, replacements }),
      ).toBe(undefined);
    });

    it("revokes a retired key from its revocation's time, by default the change's plus the clock margin", async () => {
      const store = await db.open();
      const first = serviceKey();
      await store.keyRing.register(first);
      const now = at("2030-05-01T00:00:00.000Z");
      await store.keyRing.rotate(serviceKey(), { now: () => now, overlapMs: 0 });
      const outcome = await store.keyRing.revoke(
        "service",
        first.keyId,
        { reason: "leaked" },
        { now: () => now, replacements: {} },
      );
      expect(outcome?.activated).toEqual([]);
      expect((await store.keyRing.list())[0]).toMatchObject<Partial<StoredRingKey>>({
        state: "revoked",
        revokedAt: new Date(now.getTime() + CLOCK_MARGIN_MS),
        revocationReason: "leaked",
      });
    });

    it("leaves the ring as it was when a revocation fails part-way: never retired without being revoked", async () => {
      const store = await db.open();
      const first = serviceKey();
      await store.keyRing.register(first);
      const before = await store.keyRing.list();
      // The last write of the revocation fails, as a kill or a lost connection would cut it.
      await failRevokedUpdates(db);
      await expect(
        store.keyRing.revoke(
          "service",
          first.keyId,
          { reason: "leaked" },
          { now: () => at("2030-05-01T00:00:00.000Z"), replacements: { service: serviceKey() } },
        ),
      ).rejects.toThrow(/no revocation here/);
      expect(await store.keyRing.list()).toEqual(before);
      // An active role without a replacement (the ring changed since it was read) writes nothing.
      await expect(
        store.keyRing.revoke(
          "service",
          first.keyId,
          { reason: "x" },
          { now: () => new Date(), replacements: {} },
        ),
      ).rejects.toThrow(/the key ring changed meanwhile/);
      expect(await store.keyRing.list()).toEqual(before);
    });

    it("gives signers the service and log keys' states, and on PostgreSQL when the read began", async () => {
      const store = await db.open();
      const service = serviceKey();
      await store.keyRing.register(service);
      await store.keyRing.register(
        newTsaRingKey(await freshTsaCredentials(new Date(), true), atRest, SINCE_EVER),
      );
      const before = Date.now();
      const { keys, startedAt } = await store.keyRing.signingStates();
      expect(keys).toEqual([
        {
          kind: "service",
          keyId: service.keyId,
          publicKey: service.publicKey,
          notBefore: SINCE_EVER,
          notAfter: null,
          state: "active",
          revokedAt: null,
        },
      ]);
      if (db.engine === "postgres") expect(startedAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
      else expect(startedAt).toBeUndefined();
    });

    it("keeps the first check value stored and private keys sealed at rest", async () => {
      const store = await db.open();
      await store.keyRing.saveCheck("at_rest", Buffer.from("first"));
      await store.keyRing.saveCheck("at_rest", Buffer.from("second"));
      expect(await store.keyRing.check("at_rest")).toEqual(Buffer.from("first"));
      expect(await store.keyRing.check("other")).toBeUndefined();
      const privateKey = generateEd25519();
      await store.keyRing.register(
        newRingKey("log", privateKey, atRest, { notBefore: SINCE_EVER, origin: "x.example/log" }),
      );
      const seed = Buffer.from(privateKey.export({ format: "jwk" }).d!, "base64url");
      expect((await db.contents()).includes(seed)).toBe(false);
    });
  });
}
