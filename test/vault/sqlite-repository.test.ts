import { afterAll } from "vitest";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { vaultRepositorySuite } from "./repository-suite.js";

const stores: SqliteStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
});

vaultRepositorySuite(async () => {
  const store = new SqliteStore(":memory:");
  await store.migrate();
  stores.push(store);
  return store;
});
