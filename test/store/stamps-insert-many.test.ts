// StampRepository.insertMany (gRPC BatchStamp's one transaction per chunk) on every engine.
import { describe, expect, it } from "vitest";
import type { Store } from "../../server/store/store.js";
import { eachFreshStore, engines, type TestDatabase } from "./engines.js";
import { stamp } from "./stamps-suite.js";

for (const engine of engines) {
  describe(`insertMany on ${engine.name}`, () => {
    let db: TestDatabase;
    let store: Store;
    eachFreshStore(engine, (fresh) => ({ db, store } = fresh));

    it("stores every stamp as insert would, and nothing for an empty list", async () => {
      await store.stamps.insertMany([]);
      const stamps = [stamp(1), stamp(2, { accountId: null }), stamp(3, { fingerprint: { chunks: [] } })];
      await store.stamps.insertMany(stamps);
      for (const s of stamps) expect(await store.stamps.get(s.id)).toEqual(s);
    });

    it("is all or none: one bad row stores none of the batch", async () => {
      await store.stamps.insert(stamp(2));
      await expect(store.stamps.insertMany([stamp(1), stamp(2), stamp(3)])).rejects.toThrow();
      expect(await store.stamps.get(stamp(1).id)).toBeUndefined();
      expect(await store.stamps.get(stamp(3).id)).toBeUndefined();
    });
  });
}
