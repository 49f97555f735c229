// Group commit of single stamp inserts (StampRepository.insert) on every engine: concurrent
// inserts share one transaction, a refused row fails alone, an insert is acknowledged only once
// committed, and closing the store writes what is queued.
import type pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GroupCommit } from "../../server/store/group-commit.js";
import type { PostgresStore } from "../../server/store/postgres/postgres-store.js";
import type { Store } from "../../server/store/store.js";
import { eachFreshStore, engines, type TestDatabase } from "./engines.js";
import { stamp } from "./stamps-suite.js";

/** The repository's group commit, whose `commits` counts transactions. */
const writesOf = (store: Store) => (store.stamps as unknown as { writes: GroupCommit<unknown> }).writes;

for (const engine of engines) {
  describe(`group commit of stamp inserts on ${engine.name}`, () => {
    let db: TestDatabase;
    let store: Store;
    eachFreshStore(engine, (fresh) => ({ db, store } = fresh));

    it("stores 200 concurrent inserts, all of them, in one transaction", async () => {
      const stamps = Array.from({ length: 200 }, (_, n) => stamp(n));
      const before = writesOf(store).commits;
      await Promise.all(stamps.map((s) => store.stamps.insert(s)));
      expect(writesOf(store).commits - before).toBe(1);
      expect(await count(db)).toBe(200);
      for (const s of [stamps[0]!, stamps[199]!]) expect(await store.stamps.get(s.id)).toEqual(s);
    });

    it("fails only the insert whose row is refused; the others of its group are stored", async () => {
      await store.stamps.insert(stamp(2));
      const results = await Promise.allSettled([1, 2, 3].map((n) => store.stamps.insert(stamp(n))));
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(await store.stamps.get(stamp(1).id)).toEqual(stamp(1));
      expect(await store.stamps.get(stamp(3).id)).toEqual(stamp(3));
    });

    it("commits concurrent batches together; a batch with a refused row is stored none, alone", async () => {
      await store.stamps.insert(stamp(15));
      const batches = [0, 10, 20].map((start) => Array.from({ length: 10 }, (_, n) => stamp(start + n)));
      const before = writesOf(store).commits;
      const results = await Promise.allSettled(batches.map((b) => store.stamps.insertMany(b)));
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      // The group failed on stamp 15, then each batch was retried alone: two of them committed.
      expect(writesOf(store).commits - before).toBe(2);
      expect(await count(db)).toBe(21);
      expect(await store.stamps.get(stamp(14).id)).toBeUndefined();
    });

    it("writes the queued inserts before the store closes", async () => {
      const stamps = Array.from({ length: 20 }, (_, n) => stamp(n));
      const inserts = Promise.all(stamps.map((s) => store.stamps.insert(s)));
      await store.close();
      await inserts;
      expect(await count(db)).toBe(20);
    });
  });
}

describe("group commit on postgres acknowledges an insert only after its commit", () => {
  let db: TestDatabase;
  let store: Store;
  let locker: pg.PoolClient;
  beforeEach(async () => {
    db = await engines.find((e) => e.name === "postgres")!.create();
    store = await db.open();
    locker = await ((await db.open()) as PostgresStore).pool.connect();
  });
  afterEach(async () => {
    locker.release();
    await db.drop();
  });

  it("holds the caller while another transaction's lock keeps the insert from committing", async () => {
    await locker.query("BEGIN");
    // SHARE mode conflicts with the ROW EXCLUSIVE lock an INSERT takes, and lets readers through.
    await locker.query("LOCK TABLE stamps IN SHARE MODE");
    let acknowledged = false;
    const insert = store.stamps.insert(stamp(1)).then(() => {
      acknowledged = true;
    });
    await until(async () => (await waitingInserts(db)) > 0);
    expect(acknowledged).toBe(false);
    expect(await store.stamps.get(stamp(1).id)).toBeUndefined();
    await locker.query("COMMIT");
    await insert;
    expect(acknowledged).toBe(true);
    expect(await store.stamps.get(stamp(1).id)).toEqual(stamp(1));
  });
});

/** Lock requests on this schema's stamps table that are waiting (not granted). */
async function waitingInserts(db: TestDatabase): Promise<number> {
  const [row] = await db.rows<{ n: number }>(
    `SELECT count(*) AS n FROM pg_locks l JOIN pg_class c ON c.oid = l.relation
       JOIN pg_namespace s ON s.oid = c.relnamespace
     WHERE NOT l.granted AND c.relname = 'stamps' AND s.nspname = current_schema()`,
  );
  return row!.n;
}

const count = async (db: TestDatabase) =>
  (await db.rows<{ n: number }>("SELECT count(*) AS n FROM stamps"))[0]!.n;

/** Polls until `condition` holds (no timing assumption: it waits as long as it takes). */
async function until(condition: () => Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((r) => setImmediate(r));
}
