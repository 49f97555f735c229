import { describe, expect, it } from "vitest";
import { rootLeafHash } from "../../server/log/transparency-log.js";
import { sealStamps } from "../../server/proofs/seal.js";
import { openStore } from "../../server/store/open.js";
import { PostgresStore } from "../../server/store/postgres/postgres-store.js";
import { testServiceKeys } from "../helpers/service-keys.js";
import { newVault } from "../vault/repository-suite.js";
import { postgres } from "./engines.js";
import { createSchema } from "./postgres.js";
import { stamp } from "./stamps-suite.js";
import { storeSuite } from "./store-suite.js";

storeSuite(postgres);

describe("the PostgreSQL store", () => {
  it("is chosen by a postgres:// or postgresql:// DATABASE_URL", async () => {
    for (const url of ["postgres://u@h/db", "postgresql://u@h/db"]) {
      const store = await openStore({ DATA_DIR: "unused", DATABASE_URL: url });
      expect(store).toBeInstanceOf(PostgresStore);
      void store.close();
    }
  });

  it("keeps its tables in the schema the URL names, apart from other schemas", async () => {
    const [a, b] = [await postgres.create(), await postgres.create()];
    try {
      const store = await a.open();
      await store.vaults.purgeProofs(new Date());
      await store.idempotency.reserve(
        {
          scope: "s",
          key: "k",
          operation: "o",
          fingerprint: "f",
          response: null,
          lockedUntil: new Date(),
          expiresAt: new Date(Date.now() + 60_000),
        },
        new Date(),
      );
      expect(await a.rows("SELECT idempotency_key FROM idempotency_keys")).toEqual([
        { idempotency_key: "k" },
      ]);
      expect(await b.rows("SELECT idempotency_key FROM idempotency_keys")).toEqual([]);
    } finally {
      await a.drop();
      await b.drop();
    }
  });

  it("follows the database's clock, measured when it migrates", async () => {
    const schema = await createSchema();
    const store = new PostgresStore(schema.url);
    try {
      expect(store.clock).toBeUndefined();
      await store.migrate();
      const { rows } = await store.pool.query<{ at: Date }>("SELECT clock_timestamp() AS at");
      const skew = Math.abs(store.clock!.now().getTime() - rows[0]!.at.getTime());
      expect(skew).toBeLessThan(1000);
    } finally {
      await store.close();
      await schema.drop();
    }
  });

  it("refuses to change or delete log entries: the log is append-only", async () => {
    const db = await postgres.create();
    try {
      const store = await db.open();
      await store.stamps.insert(stamp(1));
      await store.proofs.sealBatch(10, (claimed) =>
        sealStamps("bat_01JD3Y2B8C4D6E7F9G0H1J2K3M", claimed, testServiceKeys().signing, new Date()),
      );
      expect(await store.log.appendSealed(new Date(), rootLeafHash)).toBe(1);
      for (const sql of [
        "UPDATE log_entries SET idx = 5",
        "DELETE FROM log_entries",
        "TRUNCATE log_entries",
      ]) {
        await expect(db.rows(sql)).rejects.toThrow(/append-only/);
      }
      expect(await db.rows("SELECT idx FROM log_entries")).toEqual([{ idx: 0 }]);
    } finally {
      await db.drop();
    }
  });

  it("adds up fees paid on several instances at once without losing one", async () => {
    const db = await postgres.create();
    try {
      const stores = await Promise.all([db.open(), db.open(), db.open()]);
      await stores[0]!.vaults.insert(newVault("vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M"), "a2V5");
      const pay = (n: number) =>
        stores[n % 3]!.vaults.update([], {
          receiptId: `rcp_${n}`,
          amount: "0.25",
          currency: "USDC",
          recipient: "r",
          usedAt: new Date(),
          usedFor: "test",
        });
      expect(new Set(await Promise.all(Array.from({ length: 40 }, (_, n) => pay(n))))).toEqual(
        new Set(["applied"]),
      );
      expect((await stores[1]!.vaults.stats("USDC")).feesCollected).toBe("10.00");
    } finally {
      await db.drop();
    }
  });

  it("fails to start, and does not hang, when the database is unreachable", async () => {
    const store = new PostgresStore("postgres://postgres@127.0.0.1:1/test");
    await expect(store.migrate()).rejects.toThrow(/ECONNREFUSED/);
    await store.close();
  });
});
