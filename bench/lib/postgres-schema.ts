// The PostgreSQL the benchmarks use: the machine's (127.0.0.1:5432, database `test`, or
// DATABASE_URL), one fresh schema per run, dropped afterwards, so runs never see each other's rows
// nor the tests'. Stale schemas of an interrupted run are easy to spot by their `stampd_bench_` name.
import { randomBytes } from "node:crypto";
import pg from "pg";

const databaseUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export interface BenchSchema {
  name: string;
  /** A DATABASE_URL whose search path is the schema. */
  url: string;
  /** Runs one statement in the schema, on a connection of its own. */
  query<Row extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<Row[]>;
  drop(): Promise<void>;
}

/** Creates an empty schema for one benchmark run. */
export async function freshSchema(): Promise<BenchSchema> {
  const name = `stampd_bench_${randomBytes(6).toString("hex")}`;
  await once(databaseUrl, `CREATE SCHEMA ${name}`);
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${name}`);
  return {
    name,
    url: url.toString(),
    query: (sql, params) => once(url.toString(), sql, params),
    drop: async () => {
      await once(databaseUrl, `DROP SCHEMA IF EXISTS ${name} CASCADE`);
    },
  };
}

async function once<Row extends pg.QueryResultRow>(
  connectionString: string,
  sql: string,
  params?: unknown[],
): Promise<Row[]> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return (await client.query<Row>(sql, params)).rows;
  } finally {
    await client.end();
  }
}
