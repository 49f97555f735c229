import { afterEach, describe, expect, it } from "vitest";
import type { PostgresStore } from "../../server/store/postgres/postgres-store.js";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import type { Store } from "../../server/store/store.js";
import { VaultFixture } from "../vault/fixture.js";
import { engines } from "./engines.js";

const alice = "acc_alice";

/** What the store held after one 10^30 receipt and one 0.50 receipt, before migration 0007. */
const legacyTotal = "1000000000000000000000000000000.499999999999999999";

/** Puts fee_totals back as it was before migration 0007, holding `total`, and forgets 0007 ran. */
async function legacyFeeTotals(store: Store, total: string): Promise<void> {
  const forget = "DELETE FROM schema_migrations WHERE name = '0007_fee_total_units.sql'";
  if (store.kind === "sqlite") {
    (store as SqliteStore).db.exec(`DROP TABLE fee_totals;
      CREATE TABLE fee_totals (currency TEXT PRIMARY KEY, total TEXT NOT NULL);
      INSERT INTO fee_totals VALUES ('USDC', '${total}'); ${forget}`);
  } else {
    await (store as PostgresStore).pool.query(`DROP TABLE fee_totals;
      CREATE TABLE fee_totals (currency TEXT PRIMARY KEY, total NUMERIC NOT NULL);
      INSERT INTO fee_totals VALUES ('USDC', '${total}'); ${forget}`);
  }
}

// Issue #21: a fee total past the amount parser's 30 digits made every heartbeat (SQLite) or the
// statistics (PostgreSQL) answer 500 for good. Totals are now whole 10^-18 units read with BigInt.
describe.each(engines)("fee totals in 10^-18 units ($name)", (engine) => {
  const open: VaultFixture[] = [];
  afterEach(async () => {
    for (const f of open.reverse()) await f.close();
    open.length = 0;
  });

  it("converts a total the old parser could not read, and heartbeats and statistics work again", async () => {
    const f = await VaultFixture.open({}, engine);
    open.push(f);
    const vault = await f.create(alice);
    await legacyFeeTotals(f.store, legacyTotal);
    const upgraded = await f.twin();
    open.push(upgraded);
    expect((await upgraded.domain.deps.repo.stats("USDC")).feesCollected).toBe(legacyTotal);
    await upgraded.vaults.heartbeat(alice, vault.id, upgraded.receipt("0.50"));
    expect((await upgraded.domain.deps.repo.stats("USDC")).feesCollected).toBe(
      "1000000000000000000000000000000.999999999999999999",
    );
    expect(await f.rows("SELECT CAST(units AS TEXT) AS units FROM fee_totals")).toEqual([
      { units: "1000000000000000000000000000000999999999999999999" },
    ]);
  });

  it.each([
    ["0", "0.00"],
    ["12", "12.00"],
    ["0.000000000000000001", "0.000000000000000001"],
  ])("converts the old total %s exactly", async (old, shown) => {
    const f = await VaultFixture.open({}, engine);
    open.push(f);
    await legacyFeeTotals(f.store, old);
    const upgraded = await f.twin();
    open.push(upgraded);
    expect((await upgraded.domain.deps.repo.stats("USDC")).feesCollected).toBe(shown);
  });
});
