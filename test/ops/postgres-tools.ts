import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import pg from "pg";

const run = promisify(execFile);

/** The machine's PostgreSQL (trust auth), as the other PostgreSQL tests use it. */
export const server = { host: "127.0.0.1", port: "5432", user: "postgres" };
export const databaseUrl = (name: string) =>
  `postgres://${server.user}@${server.host}:${server.port}/${name}`;

export async function admin(sql: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: databaseUrl("test") });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * The path of a PostgreSQL client program (pg_dump, pg_restore, createdb) that can work with the
 * server: Debian installs each major version in /usr/lib/postgresql/<major>/bin, and pg_dump
 * refuses a server newer than itself. Prefers the server's own major version, else the one on
 * PATH when it is at least as new; otherwise fails, naming both versions.
 */
export async function clientTool(name: string): Promise<string> {
  const serverMajor = Math.floor(
    Number((await admin("SHOW server_version_num")).rows[0].server_version_num) / 10000,
  );
  const matching = `/usr/lib/postgresql/${serverMajor}/bin/${name}`;
  if (existsSync(matching)) return matching;
  const { stdout } = await run(name, ["--version"]);
  const clientMajor = Number(/(\d+)(\.\d+)*/.exec(stdout)?.[1]);
  if (clientMajor < serverMajor) {
    throw new Error(
      `${name} ${clientMajor} cannot work with PostgreSQL ${serverMajor}: install postgresql-client-${serverMajor}`,
    );
  }
  return name;
}

/** Runs a PostgreSQL client program against the local server. */
export async function pgTool(name: string, ...args: string[]): Promise<void> {
  await run(await clientTool(name), [
    "--host",
    server.host,
    "--port",
    server.port,
    "--username",
    server.user,
    ...args,
  ]);
}
