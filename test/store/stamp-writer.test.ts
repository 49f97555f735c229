// The SQLite stamp writer thread (server/store/sqlite/stamp-writer.ts): a database file's stamps
// are committed by a thread with its own connection. Reads see a stamp as soon as its insert is
// acknowledged, the main connection's transactions wait for the thread's commits instead of failing
// with SQLITE_BUSY, a dead thread fails its pending writes, and closing leaves no thread behind.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import type { WriterThread } from "../../server/store/sqlite/stamp-writer.js";
import type { Store } from "../../server/store/store.js";
import { eachFreshStore, engines, sqlite, type TestDatabase } from "./engines.js";
import { stamp } from "./stamps-suite.js";

/** The repository's writer thread and the worker running it. */
const threadOf = (store: SqliteStore) => (store.stamps as unknown as { thread: WriterThread }).thread;
const workerOf = (thread: WriterThread) =>
  (thread as unknown as { worker: { terminate(): Promise<number> } }).worker;

for (const engine of engines) {
  describe(`reads after acknowledged stamp inserts on ${engine.name}`, () => {
    let db: TestDatabase;
    let store: Store;
    eachFreshStore(engine, (fresh) => ({ db, store } = fresh));

    it("finds each stamp as soon as its insert is acknowledged, among 300 concurrent ones", async () => {
      const stamps = Array.from({ length: 300 }, (_, n) => stamp(n));
      const found = await Promise.all(
        stamps.map(async (s, n) => {
          // Inserts arrive over several turns of the event loop, so they make several groups.
          for (let turn = 0; turn < n % 7; turn++) await new Promise((r) => setImmediate(r));
          if (n % 2 === 0) await store.stamps.insert(s);
          else await store.stamps.insertMany([s]);
          return store.stamps.get(s.id);
        }),
      );
      expect(found).toEqual(stamps);
    });
  });
}

describe("SQLite stamp writer thread", () => {
  let db: TestDatabase;
  let store: SqliteStore;
  beforeEach(async () => {
    db = await sqlite.create();
    store = (await db.open()) as SqliteStore;
  });
  afterEach(() => db.drop());

  it("starts with the first insert of a file database and is gone once the store is closed", async () => {
    const thread = threadOf(store);
    expect(thread.running).toBe(false);
    await store.stamps.insert(stamp(1));
    expect(thread.running).toBe(true);
    await store.close();
    expect(thread.running).toBe(false);
  });

  it("commits in-memory databases on the main connection: they cannot be shared with a thread", async () => {
    const { SqliteStore } = await import("../../server/store/sqlite/sqlite-store.js");
    const memory = new SqliteStore(":memory:");
    await memory.migrate();
    await memory.stamps.insert(stamp(1));
    expect(threadOf(memory)).toBeUndefined();
    expect(await memory.stamps.get(stamp(1).id)).toEqual(stamp(1));
    await memory.close();
  });

  it("commits a file database's stamps on the main connection with SQLITE_WRITER_THREAD=false", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { loadConfig } = await import("../../server/config.js");
    const { openStore } = await import("../../server/store/open.js");
    const dir = mkdtempSync(join(tmpdir(), "stampd-no-writer-"));
    try {
      const config = loadConfig({ DATA_DIR: dir, SQLITE_WRITER_THREAD: "false" });
      const file = (await openStore(config)) as SqliteStore;
      await file.migrate();
      await file.stamps.insert(stamp(2));
      expect(threadOf(file)).toBeUndefined();
      expect(await file.stamps.get(stamp(2).id)).toEqual(stamp(2));
      await file.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("fails the writes pending when the thread dies, and the next write starts a new thread", async () => {
    const thread = threadOf(store);
    const pending = store.stamps.insert(stamp(1));
    while (!thread.running) await new Promise((r) => setImmediate(r));
    await workerOf(thread).terminate();
    await expect(pending).rejects.toThrow(/stamp writer thread stopped/);
    await store.stamps.insert(stamp(2));
    expect(await store.stamps.get(stamp(2).id)).toEqual(stamp(2));
  });

  it("lets the main connection's transactions wait for the thread's commits: none fails with SQLITE_BUSY", async () => {
    store.db.exec("CREATE TABLE probe (n INTEGER)");
    // Reads, then writes: a deferred transaction would fail when the thread commits in between.
    const readThenWrite = store.db.transaction((n: number) => {
      store.db.prepare("SELECT total FROM stamp_count").get();
      store.db.prepare("INSERT INTO probe (n) VALUES (?)").run(n);
    });
    let writing = true;
    const inserts = (async () => {
      for (let wave = 0; wave < 40; wave++) {
        await Promise.all(Array.from({ length: 25 }, (_, n) => store.stamps.insert(stamp(wave * 25 + n))));
      }
      writing = false;
    })();
    let transactions = 0;
    while (writing) {
      readThenWrite(transactions++);
      await new Promise((r) => setTimeout(r, 1));
    }
    await inserts;
    expect(await db.rows("SELECT count(*) AS n FROM probe")).toEqual([{ n: transactions }]);
    expect(await store.stamps.count()).toBe(1000);
  });
});
