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
import { freshTsaCredentials, newTsaRingKey } from "../../server/keys/tsa-keys.js";
import { postgres, sqlite, type TestDatabase } from "../store/engines.js";

const atRest = atRestCipher(randomBytes(32));
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

    it("rotates: the old key retired with the end of its period, the new one active", async () => {
      const store = await db.open();
      const first = serviceKey();
      await store.keyRing.register(first);
      const second = serviceKey(at("2026-05-01T00:00:00.000Z"));
      const retired = await store.keyRing.rotate(second, at("2026-05-01T00:01:00.000Z"));
      expect(retired).toEqual({ ...first, state: "retired", notAfter: at("2026-05-01T00:01:00.000Z") });
      expect(await store.keyRing.list()).toEqual([retired, second]);
      // Its private key comes back whole from the store.
      const [, stored] = await store.keyRing.list();
      expect(ringPrivateKey(stored!, atRest).export({ format: "jwk" }).d).toBeDefined();
    });

    it("lets two rotations of one kind at once leave exactly one active key", async () => {
      const [a, b] = await Promise.all([db.open(), db.open()]);
      await a.keyRing.register(serviceKey());
      const now = at("2026-05-01T00:00:00.000Z");
      await Promise.all([a.keyRing.rotate(serviceKey(now), now), b.keyRing.rotate(serviceKey(now), now)]);
      const states = (await a.keyRing.list()).map((k) => k.state).sort();
      expect(states).toEqual(["active", "retired", "retired"]);
    });

    it("revokes a retired key with its reason and time, never the active one", async () => {
      const store = await db.open();
      const first = serviceKey();
      await store.keyRing.register(first);
      const revocation = { reason: "leaked", at: at("2026-04-01T12:00:00.000Z") };
      expect(await store.keyRing.revoke("service", first.keyId, revocation)).toBe(false);
      const now = at("2026-05-01T00:00:00.000Z");
      await store.keyRing.rotate(serviceKey(now), now);
      expect(await store.keyRing.revoke("service", first.keyId, revocation)).toBe(true);
      expect(await store.keyRing.revoke("log", first.keyId, revocation)).toBe(false);
      const [revoked] = await store.keyRing.list();
      expect(revoked).toMatchObject<Partial<StoredRingKey>>({
        state: "revoked",
        revokedAt: revocation.at,
        revocationReason: "leaked",
      });
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
