import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, beforeEach } from "vitest";
import { PostgresStore } from "../../server/store/postgres/postgres-store.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import type { Store } from "../../server/store/store.js";
import { createSchema } from "./postgres.js";

/**
 * One database of a test, on either engine. Store-level suites take a TestEngine and run the same
 * assertions on SQLite and PostgreSQL.
 */
export interface TestDatabase {
  readonly engine: EngineName;
  /** A migrated Store on this database; each call is a new connection, like another instance. */
  open(): Promise<Store>;
  /** Runs SQL written with `?` placeholders for inspection; integers come back as numbers. */
  rows<T = Record<string, unknown>>(sql: string, ...params: unknown[]): Promise<T[]>;
  /** Every stored value as bytes (text as UTF-8), to check what the database holds at rest. */
  contents(): Promise<Buffer>;
  /** Closes every store opened here and removes the database. */
  drop(): Promise<void>;
}

export type EngineName = "sqlite" | "postgres";

export interface TestEngine {
  name: EngineName;
  create(): Promise<TestDatabase>;
}

export const sqlite: TestEngine = {
  name: "sqlite",
  async create() {
    const dir = mkdtempSync(join(tmpdir(), "stampd-db-"));
    const path = join(dir, "stampd.db");
    const stores: SqliteStore[] = [];
    const open = async () => {
      const store = new SqliteStore(path);
      await store.migrate();
      stores.push(store);
      return store;
    };
    const inspector = await open();
    return {
      engine: "sqlite",
      open,
      async rows<T>(sql: string, ...params: unknown[]) {
        return inspector.db.prepare(sql).all(...params) as T[];
      },
      async contents() {
        // The files themselves (database, WAL), after every connection has closed.
        for (const store of stores) await store.close();
        return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
      },
      async drop() {
        for (const store of stores) await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

// count(*) and other bigints as numbers, as SQLite returns them (test inspection only).
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format as "text")) as never,
};

export const postgres: TestEngine = {
  name: "postgres",
  async create() {
    const schema = await createSchema();
    const stores: PostgresStore[] = [];
    const inspector = new pg.Pool({ connectionString: schema.url, max: 1, types });
    const open = async () => {
      const store = new PostgresStore(schema.url);
      stores.push(store);
      await store.migrate();
      return store;
    };
    // The tables exist from here on, for rows() before any store is opened.
    await open()
      .then((store) => store.close())
      .catch(async (err) => {
        await inspector.end();
        await schema.drop();
        throw err;
      });
    return {
      engine: "postgres",
      open,
      async rows<T>(sql: string, ...params: unknown[]) {
        let n = 0;
        const text = sql.replace(/\?/g, () => `$${++n}`);
        return (await inspector.query(text, params)).rows as T[];
      },
      async contents() {
        const { rows: tables } = await inspector.query<{ name: string }>(
          "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1",
          [schema.name],
        );
        const values: Buffer[] = [];
        for (const { name } of tables) {
          const { rows } = await inspector.query(`SELECT * FROM ${name}`);
          for (const row of rows) values.push(...Object.values(row).map(bytesOf));
        }
        return Buffer.concat(values);
      },
      async drop() {
        for (const store of stores) await store.close();
        await inspector.end();
        await schema.drop();
      },
    };
  },
};

export const engines: TestEngine[] = [sqlite, postgres];

/**
 * Before each test of the enclosing describe, a new database on `engine` and a migrated store on it,
 * handed to `use`; the database is dropped after the test.
 */
export function eachFreshStore(
  engine: TestEngine,
  use: (fresh: { db: TestDatabase; store: Store }) => void,
): void {
  let db: TestDatabase | undefined;
  beforeEach(async () => {
    db = await engine.create();
    use({ db, store: await db.open() });
  });
  afterEach(() => db?.drop());
}

function bytesOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  if (value instanceof Date) return Buffer.from(value.toISOString());
  return Buffer.from(typeof value === "string" ? value : JSON.stringify(value ?? null));
}
