import { readdir, readFile } from "node:fs/promises";
import pg from "pg";
import { inTransaction } from "./transaction.js";

const migrationsDir = new URL("./migrations/", import.meta.url);

// Session advisory lock keyed by (this constant, the schema): instances starting together on one
// schema take turns, and the second finds every migration applied. Other schemas are not blocked.
const lockClass = 0x57a3d;
const lockArgs = "$1::int, hashtext(current_schema())";

/**
 * Applies the numbered files of `migrations/` not yet recorded in `schema_migrations`, each in its
 * own transaction, while holding the advisory lock; safe when several instances start at once.
 * It runs on a connection of its own, outside the pool, so that neither a long migration nor the
 * wait for another instance's lock meets the pool's per-query deadline.
 */
export async function migrate(url: string, connectTimeoutMs: number): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: connectTimeoutMs });
  // A socket that dies mid-migration fails the query in flight; without a listener it would also
  // end the process.
  client.on("error", () => {});
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(${lockArgs})`, [lockClass]);
    try {
      await applyPending(client);
    } finally {
      await client.query(`SELECT pg_advisory_unlock(${lockArgs})`, [lockClass]);
    }
  } finally {
    await client.end().catch(() => {});
  }
}

async function applyPending(client: pg.ClientBase): Promise<void> {
  await client.query(
    "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)",
  );
  const { rows } = await client.query<{ name: string }>("SELECT name FROM schema_migrations");
  const applied = new Set(rows.map((r) => r.name));
  const pending = (await readdir(migrationsDir)).filter((f) => f.endsWith(".sql") && !applied.has(f)).sort();
  for (const name of pending) {
    const sql = await readFile(new URL(name, migrationsDir), "utf8");
    await inTransaction(client, async () => {
      await client.query(sql);
      await client.query("INSERT INTO schema_migrations (name, applied_at) VALUES ($1, now())", [name]);
    });
  }
}
