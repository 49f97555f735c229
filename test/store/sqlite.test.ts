import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/open.js";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "stampd-store-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("the SQLite store", () => {
  it("creates its file in DATA_DIR, in WAL mode", async () => {
    const dir = join(tempDir(), "nested");
    const store = openStore({ DATA_DIR: dir });
    await store.migrate();
    expect(existsSync(join(dir, "stampd.db"))).toBe(true);
    expect((store as SqliteStore).db.pragma("journal_mode", { simple: true })).toBe("wal");
    await store.close();
  });

  it("applies each migration once, across restarts", async () => {
    const path = join(tempDir(), "s.db");
    const first = new SqliteStore(path);
    await first.migrate();
    const count = () =>
      (first.db.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n;
    const applied = count();
    expect(applied).toBeGreaterThan(0);
    await first.migrate();
    expect(count()).toBe(applied);
    await first.close();
    const again = new SqliteStore(path);
    await again.migrate();
    expect((again.db.prepare("SELECT count(*) AS n FROM schema_migrations").get() as { n: number }).n).toBe(
      applied,
    );
    await again.close();
  });

  it("answers ping and rejects an unsupported DATABASE_URL scheme", async () => {
    const store = openStore({ DATA_DIR: tempDir() });
    await expect(store.ping()).resolves.toBeUndefined();
    await store.close();
    expect(() => openStore({ DATA_DIR: tempDir(), DATABASE_URL: "mysql://x" })).toThrow(/DATABASE_URL/);
  });
});
