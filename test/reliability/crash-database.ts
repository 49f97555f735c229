import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { createSchema, databaseUrl } from "../store/postgres.js";

/** The store a crash run uses: its server environment and a way to look inside while it is down. */
export interface CrashStore {
  readonly engine: "sqlite" | "postgres";
  /** DATA_DIR (keys, and the SQLite file) and DATABASE_URL for the server and the CLI. */
  readonly env: Record<string, string>;
  readonly dataDir: string;
  inspect(): Promise<Inspection>;
  drop(): Promise<void>;
}

/** A connection for checks, with `?` placeholders on both engines. */
export interface Inspection {
  rows<T>(sql: string, ...params: unknown[]): Promise<T[]>;
  /**
   * What the engine's own structural check reports, empty when all is well: SQLite's
   * integrity_check and foreign_key_check; on PostgreSQL amcheck's bt_index_check of every index
   * with heapallindexed (each table row has its index entries).
   */
  structuralProblems(): Promise<string[]>;
  close(): Promise<void>;
}

export async function sqliteStore(): Promise<CrashStore> {
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-crash-"));
  return {
    engine: "sqlite",
    env: { DATA_DIR: dataDir },
    dataDir,
    async inspect() {
      // Read-only: the check must see the files exactly as the kill left them (WAL included).
      const db = new Database(join(dataDir, "stampd.db"), { readonly: true, fileMustExist: true });
      return {
        rows: async <T>(sql: string, ...params: unknown[]) => db.prepare(sql).all(...params) as T[],
        async structuralProblems() {
          const integrity = db.pragma("integrity_check") as { integrity_check: string }[];
          const foreignKeys = db.pragma("foreign_key_check") as object[];
          return [
            ...integrity.map((r) => r.integrity_check).filter((r) => r !== "ok"),
            ...foreignKeys.map((r) => `foreign key violation: ${JSON.stringify(r)}`),
          ];
        },
        close: async () => {
          db.close();
        },
      };
    },
    async drop() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// count(*) and other bigints as numbers, as SQLite returns them.
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format as "text")) as never,
};

export async function postgresStore(): Promise<CrashStore> {
  const schema = await createSchema();
  const dataDir = mkdtempSync(join(tmpdir(), "stampd-crash-"));
  return {
    engine: "postgres",
    env: { DATA_DIR: dataDir, DATABASE_URL: schema.url },
    dataDir,
    async inspect() {
      const pool = new pg.Pool({ connectionString: schema.url, max: 1, types });
      const rows = async <T>(sql: string, ...params: unknown[]) => {
        let n = 0;
        return (
          await pool.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows as T[];
      };
      return {
        rows,
        async structuralProblems() {
          const amcheck = await amcheckSchema();
          const indexes = await rows<{ name: string }>(
            `SELECT c.relname AS name FROM pg_index i
               JOIN pg_class c ON c.oid = i.indexrelid
               JOIN pg_namespace n ON n.oid = c.relnamespace
               JOIN pg_am am ON am.oid = c.relam
             WHERE n.nspname = current_schema() AND am.amname = 'btree'`,
          );
          const problems: string[] = [];
          for (const { name } of indexes) {
            await pool
              .query(`SELECT ${amcheck}.bt_index_check($1::regclass, true)`, [name])
              .catch((err: Error) => problems.push(`index ${name}: ${err.message}`));
          }
          return problems;
        },
        close: () => pool.end(),
      };
    },
    async drop() {
      await schema.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The schema holding amcheck's functions, installing the extension (contrib) when it is missing. */
async function amcheckSchema(): Promise<string> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const find = () =>
      client.query<{ schema: string }>(
        `SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
         WHERE e.extname = 'amcheck'`,
      );
    let found = await find();
    // Another run may be installing it at the same moment; then it is there afterwards.
    if (found.rows.length === 0) await client.query("CREATE EXTENSION IF NOT EXISTS amcheck").catch(() => {});
    found = await find();
    if (found.rows.length === 0) throw new Error("the amcheck extension cannot be installed");
    return found.rows[0]!.schema;
  } finally {
    await client.end();
  }
}
