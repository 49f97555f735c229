import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";
import { createSchema, type TestSchema } from "../store/postgres.js";
import { runStampd, SPAWNS_TIMEOUT } from "./run-stampd.js";

// What every command shares: --version, a scheme-less --url, short usage errors, and the server's
// store commands refusing to create a new one unless asked.
let svc: RunningService;
let dir: string;
let schema: TestSchema;

beforeAll(async () => {
  [svc, schema] = await Promise.all([startService({ RATE_LIMIT_ENABLED: "false" }), createSchema()]);
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-basics-"));
});
afterAll(async () => {
  await Promise.all([svc.close(), schema.drop()]);
  rmSync(dir, { recursive: true, force: true });
});

describe("stampd basics", { timeout: SPAWNS_TIMEOUT }, () => {
  it("--version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    expect(await runStampd(["--version"])).toEqual({ code: 0, out: `${version}\n`, err: "" });
  });

  it("--url without a scheme is taken as http", async () => {
    const file = join(dir, "doc.txt");
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, "hello\n");
    const hostPort = svc.baseUrl.replace("http://", "");
    const run = await runStampd(["hash", file, "--url", hostPort, "--json"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toMatchObject({ size_bytes: 6 });
    const bad = await runStampd(["hash", file, "--url", "ftp://example.org"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("unsupported scheme ftp:");
  });

  it("a usage error prints the error and one hint line, not the help", async () => {
    const missing = await runStampd(["vault", "status"]);
    expect(missing).toEqual({
      code: 2,
      out: "",
      err: "error: missing required argument 'vault-id'\n(see stampd vault status --help)\n",
    });
    const unknown = await runStampd(["stampp"]);
    expect(unknown.code).toBe(2);
    // The error, commander's suggestion, the hint.
    expect(unknown.err).toBe("error: unknown command 'stampp'\n(Did you mean stamp?)\n(see stampd --help)\n");
    // Help is still there when asked for, listing every command.
    const help = await runStampd(["--help"]);
    expect(help.code).toBe(0);
    for (const name of ["stamp", "vault", "keys", "receipts", "verify"])
      expect(help.out).toMatch(new RegExp(`^  ${name}\\b`, "m"));
  });

  it("keys create refuses a SQLite store that does not exist unless --init, and names the store", async () => {
    const dataDir = join(dir, "nowhere");
    const env = { DATA_DIR: dataDir, DATABASE_URL: "" };
    const refused = await runStampd(["keys", "create", "--tier", "authenticated"], { env });
    expect(refused.code).toBe(2);
    expect(refused.out).toBe("");
    expect(refused.err.trim().split("\n")).toHaveLength(1);
    expect(refused.err).toContain(`no stampd store at SQLite database ${join(dataDir, "stampd.db")}`);
    expect(refused.err).toMatch(/--init.*DATA_DIR.*DATABASE_URL/);
    expect(existsSync(dataDir)).toBe(false);

    const created = await runStampd(["keys", "create", "--tier", "authenticated", "--init"], { env });
    expect(created.code).toBe(0);
    expect(created.err).toContain(`stampd: wrote to the SQLite database ${join(dataDir, "stampd.db")}`);
    // Once it exists, no flag is needed.
    const again = await runStampd(["keys", "create", "--tier", "authenticated", "--json"], { env });
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out).key).toMatch(/^svc_live_/);
  });

  it("keys create against the running server's store prints a key that server accepts", async () => {
    const run = await runStampd(["keys", "create", "--tier", "authenticated", "--json"], {
      env: { DATA_DIR: svc.dataDir, DATABASE_URL: "" },
    });
    expect(run.code).toBe(0);
    expect(run.err).toBe(`stampd: wrote to the SQLite database ${join(svc.dataDir, "stampd.db")}\n`);
    const { key } = JSON.parse(run.out);
    const res = await fetch(`${svc.baseUrl}/vault/list`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
  });

  it("keys create refuses an empty PostgreSQL database unless --init, naming it without its password", async () => {
    const url = new URL(schema.url);
    url.password = "secret-password";
    const env = { DATABASE_URL: url.toString(), DATA_DIR: join(dir, "pg-data") };
    const refused = await runStampd(["keys", "create", "--tier", "authenticated"], { env });
    expect(refused.code).toBe(2);
    expect(refused.err).toContain("no stampd store at PostgreSQL database postgres");
    expect(refused.err).not.toContain("secret-password");
    const created = await runStampd(["keys", "create", "--tier", "authenticated", "--init"], { env });
    expect(created.code).toBe(0);
    expect(created.err).toMatch(/^stampd: wrote to the PostgreSQL database postgres(ql)?:\/\/postgres@\S+$/m);
    expect(created.err).not.toContain("secret-password");
  });

  it("receipts issue refuses a DATA_DIR where no server ever ran unless --init, and prints no log line", async () => {
    const env = { DATA_DIR: join(dir, "receipts"), LOG_LEVEL: "info" };
    const refused = await runStampd(["receipts", "issue", "--amount", "0.50"], { env });
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/^stampd: no server key folder at .+--init.+\n$/);
    const first = await runStampd(["receipts", "issue", "--amount", "0.50", "--init"], { env });
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^rcpt1\.\S+\n$/);
    // Human lines only: no JSON log line, even at LOG_LEVEL=info.
    for (const line of first.err.trim().split("\n")) expect(line).toMatch(/^stampd: [^{]+$/);
    expect(first.err).toContain("created a new key file");
  });
});
