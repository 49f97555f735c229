import { afterAll } from "vitest";
import { feesSuite } from "../vault/fees-suite.js";
import { lifecycleSuite } from "../vault/lifecycle-suite.js";
import { vaultRepositorySuite } from "../vault/repository-suite.js";
import { postgres, type TestDatabase } from "./engines.js";

// The vault's store-level suites, on PostgreSQL: each test gets a schema of its own.
const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const db of databases) await db.drop();
});

vaultRepositorySuite(async () => {
  const db = await postgres.create();
  databases.push(db);
  return db.open();
});
lifecycleSuite(postgres);
feesSuite(postgres);
