// The stored-stamp counter behind the dashboard's total (migration 0009), on every engine: kept in
// the transaction of every insert path, and initialised from the stamps stored before it existed.
import { describe, expect, it } from "vitest";
import type { PostgresStore } from "../../server/store/postgres/postgres-store.js";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import type { Store } from "../../server/store/store.js";
import { eachFreshStore, engines, type TestDatabase } from "./engines.js";
import { stamp } from "./stamps-suite.js";

const range = (from: number, n: number) => Array.from({ length: n }, (_, i) => stamp(from + i));

/** Takes the store back to before migration 0009: no counter, and the migration not yet applied. */
async function beforeCounter(store: Store): Promise<void> {
  const forget = "DELETE FROM schema_migrations WHERE name = '0009_stamp_count.sql'";
  if (store.kind === "sqlite") {
    (store as SqliteStore).db.exec(`DROP TRIGGER stamp_count_insert; DROP TRIGGER stamp_count_delete;
      DROP TABLE stamp_count; ${forget}`);
  } else {
    await (store as PostgresStore).pool.query(`DROP TRIGGER stamp_count_insert ON stamps;
      DROP TRIGGER stamp_count_delete ON stamps; DROP FUNCTION stamp_count_add(); DROP FUNCTION stamp_count_remove();
      DROP TABLE stamp_count; ${forget}`);
  }
}

for (const engine of engines) {
  describe(`the stamp counter on ${engine.name}`, () => {
    let db: TestDatabase;
    let store: Store;
    eachFreshStore(engine, (fresh) => ({ db, store } = fresh));

    it("counts single inserts, grouped commits and batches, and nothing of a refused batch", async () => {
      expect(await store.stamps.count()).toBe(0);
      await store.stamps.insert(stamp(1));
      // Concurrent inserts share one transaction (group commit); batches are one statement a chunk.
      await Promise.all(range(2, 20).map((s) => store.stamps.insert(s)));
      await store.stamps.insertMany(range(100, 250));
      expect(await store.stamps.count()).toBe(271);
      // A batch with a duplicate id is refused whole, and the count with it.
      await expect(store.stamps.insertMany([stamp(1000), stamp(1)])).rejects.toThrow();
      expect(await store.stamps.count()).toBe(271);
      // count(*) is a bigint: PostgreSQL's driver hands it over as text.
      const rows = await db.rows<{ n: number | string }>("SELECT count(*) AS n FROM stamps");
      expect(rows.map(({ n }) => Number(n))).toEqual([271]);
    });

    it("adds up what two instances insert at the same time", async () => {
      const other = await db.open();
      await Promise.all([
        ...range(1, 30).map((s) => store.stamps.insert(s)),
        ...range(100, 30).map((s) => other.stamps.insert(s)),
        store.stamps.insertMany(range(200, 40)),
        other.stamps.insertMany(range(300, 40)),
      ]);
      expect(await store.stamps.count()).toBe(140);
      expect(await other.stamps.count()).toBe(140);
    });

    it("starts from the stamps stored before the counter existed", async () => {
      await store.stamps.insertMany(range(1, 12));
      await beforeCounter(store);
      await store.stamps.insert(stamp(50));
      const upgraded = await db.open();
      expect(await upgraded.stamps.count()).toBe(13);
      await upgraded.stamps.insert(stamp(51));
      expect(await upgraded.stamps.count()).toBe(14);
    });
  });
}
