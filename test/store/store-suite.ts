import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { TestDatabase, TestEngine } from "./engines.js";

/** What every Store does whatever its engine: migrations applied once, a ping, starts side by side. */
export function storeSuite(engine: TestEngine) {
  describe(`the ${engine.name} store`, () => {
    let db: TestDatabase;
    beforeEach(async () => {
      db = await engine.create();
    });
    afterEach(() => db.drop());

    const applied = async () =>
      (await db.rows<{ n: number }>("SELECT count(*) AS n FROM schema_migrations"))[0]!.n;

    it("applies each migration once, across restarts", async () => {
      const count = await applied();
      expect(count).toBeGreaterThan(0);
      const first = await db.open();
      await first.migrate();
      expect(await applied()).toBe(count);
      await first.close();
      await db.open();
      expect(await applied()).toBe(count);
    });

    it("lets several instances start at once on one database", async () => {
      const count = await applied();
      const stores = await Promise.all([db.open(), db.open(), db.open(), db.open()]);
      await Promise.all(stores.map((store) => store.migrate()));
      expect(await applied()).toBe(count);
      await Promise.all(stores.map((store) => store.ping()));
    });

    it("answers ping, and closing twice is harmless", async () => {
      const store = await db.open();
      await expect(store.ping()).resolves.toBeUndefined();
      await store.close();
      await expect(store.close()).resolves.toBeUndefined();
    });
  });
}
