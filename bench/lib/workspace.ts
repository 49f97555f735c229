// What a benchmark of one store engine runs in, and removes afterwards whatever happens: a
// temporary folder, on PostgreSQL a fresh schema of the machine's database (postgres-schema.ts),
// and the servers it starts.
import { type BenchSchema, freshSchema } from "./postgres-schema.js";
import { type Started, stop, tempDir } from "./processes.js";

export type Engine = "sqlite" | "postgres";

export interface Workspace {
  folder: string;
  /** The fresh schema, on PostgreSQL. */
  schema: BenchSchema | undefined;
  /** stampd's environment for the engine: DATABASE_URL on PostgreSQL, nothing on SQLite (its default). */
  env: Record<string, string>;
  /** Servers to stop at the end: push each one started. */
  servers: Started<unknown>[];
}

export async function inWorkspace(
  engine: Engine,
  run: (workspace: Workspace) => Promise<void>,
): Promise<void> {
  const dir = tempDir();
  const schema = engine === "postgres" ? await freshSchema() : undefined;
  const servers: Started<unknown>[] = [];
  try {
    await run({ folder: dir.path, schema, env: schema ? { DATABASE_URL: schema.url } : {}, servers });
  } finally {
    await Promise.all(servers.map((s) => stop(s.process)));
    await schema?.drop();
    dir.cleanup();
  }
}
