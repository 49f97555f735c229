import { join } from "node:path";
import type { Config } from "../config.js";
import { ConfigError } from "../config.js";
import { createPrivateFolder } from "./file-modes.js";
import { SqliteStore } from "./sqlite/sqlite-store.js";
import type { Store } from "./store.js";

/**
 * Picks the store: SQLite in DATA_DIR unless DATABASE_URL names another (`sqlite:` or `postgres://`).
 * The PostgreSQL store (and `pg`) is imported only when configured: a SQLite deployment does not
 * keep it in memory. DATA_DIR is created first, 0700, as it holds keys with either store.
 */
export async function openStore(
  config: Pick<Config, "DATA_DIR" | "DATABASE_URL"> &
    Partial<Pick<Config, "SQLITE_WRITER_THREAD" | "STORE_TIMEOUT_MS" | "STORE_RETRY_AFTER_SECONDS">>,
): Promise<Store> {
  createPrivateFolder(config.DATA_DIR);
  const path = sqlitePath(config);
  if (path !== undefined) {
    return new SqliteStore(path, {
      writerThread: config.SQLITE_WRITER_THREAD ?? true,
      retryAfterSeconds: config.STORE_RETRY_AFTER_SECONDS ?? 2,
    });
  }
  const { PostgresStore } = await import("./postgres/postgres-store.js");
  return new PostgresStore(config.DATABASE_URL!, {
    timeoutMs: config.STORE_TIMEOUT_MS ?? 5000,
    retryAfterSeconds: config.STORE_RETRY_AFTER_SECONDS ?? 2,
  });
}

/** The SQLite database file the configuration names, or undefined for PostgreSQL. */
export function sqlitePath(config: Pick<Config, "DATA_DIR" | "DATABASE_URL">): string | undefined {
  const url = config.DATABASE_URL;
  if (!url) return join(config.DATA_DIR, "stampd.db");
  if (url.startsWith("sqlite:")) return url.slice("sqlite:".length).replace(/^\/\//, "");
  if (/^postgres(ql)?:\/\//.test(url)) return undefined;
  throw new ConfigError(`invalid configuration: DATABASE_URL: unsupported scheme in "${url.split(":")[0]}:"`);
}
