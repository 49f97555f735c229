import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../server/config.js";
import { sqlitePath } from "../server/store/open.js";
import { UsageError } from "./errors.js";

/** The store a command writes to, as an operator recognises it, and whether it holds stampd's data. */
export interface StoreTarget {
  /** `SQLite database /abs/data/stampd.db` or `PostgreSQL database postgres://user@host:5432/db`. */
  description: string;
  exists: boolean;
}

type StoreConfig = Pick<Config, "DATA_DIR" | "DATABASE_URL">;

export async function storeTarget(config: StoreConfig): Promise<StoreTarget> {
  const path = sqlitePath(config);
  if (path !== undefined)
    return { description: `SQLite database ${resolve(path)}`, exists: existsSync(path) };
  const url = new URL(config.DATABASE_URL!);
  url.password = "";
  return { description: `PostgreSQL database ${url}`, exists: await migrated(config.DATABASE_URL!) };
}

/** Whether stampd's migrations ever ran there (their table exists): an empty database has none. */
async function migrated(databaseUrl: string): Promise<boolean> {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ found: boolean }>(
      "SELECT to_regclass('schema_migrations') IS NOT NULL AS found",
    );
    return rows[0]!.found;
  } finally {
    await client.end();
  }
}

/**
 * A command run from the wrong folder would otherwise create a new empty store (./data) and write
 * there, and the key it printed would be refused by the running server: without `--init`, the
 * store must already exist.
 */
export function requireExisting(
  what: string,
  found: boolean,
  init: boolean | undefined,
  config: StoreConfig,
): void {
  if (found || init) return;
  const where = config.DATABASE_URL ? "DATABASE_URL" : `DATA_DIR (now ${config.DATA_DIR})`;
  throw new UsageError(
    `no ${what}: point ${where} at the server's store, or pass --init to create a new one (DATA_DIR, DATABASE_URL)`,
  );
}
