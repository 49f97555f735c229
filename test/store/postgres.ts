import { randomBytes } from "node:crypto";
import pg from "pg";

/** The machine's PostgreSQL the tests share; every test database is a schema of its own in it. */
export const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh schema in the test database, and the DATABASE_URL that makes it the search path. */
export interface TestSchema {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/**
 * Creates an empty schema for one test (file), so test files running in parallel never see each
 * other's tables. Fails, never skips, when PostgreSQL is unreachable.
 */
export async function createSchema(): Promise<TestSchema> {
  const name = `stampd_test_${randomBytes(6).toString("hex")}`;
  await admin((client) => client.query(`CREATE SCHEMA ${name}`));
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    drop: () => admin((client) => client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`)).then(() => {}),
  };
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
