import type { Config } from "../config.js";
import { sqlitePath } from "./open.js";

/** The store the configuration names, for the start-up log: never a password or query options. */
export function describeStore(config: Pick<Config, "DATA_DIR" | "DATABASE_URL">): string {
  const path = sqlitePath(config);
  if (path !== undefined) return `sqlite ${path}`;
  const url = new URL(config.DATABASE_URL!);
  const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
  return `postgres ${user}${url.host}${url.pathname}`;
}
