import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../server/store/open.js";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { sqlite } from "./engines.js";
import { storeSuite } from "./store-suite.js";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "stampd-store-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

storeSuite(sqlite);

describe("the SQLite store", () => {
  it("creates its file in DATA_DIR, in WAL mode", async () => {
    const dir = join(tempDir(), "nested");
    const store = await openStore({ DATA_DIR: dir });
    await store.migrate();
    expect(existsSync(join(dir, "stampd.db"))).toBe(true);
    expect((store as SqliteStore).db.pragma("journal_mode", { simple: true })).toBe("wal");
    await store.close();
  });

  it("uses the process clock and rejects an unsupported DATABASE_URL scheme", async () => {
    const store = await openStore({ DATA_DIR: tempDir() });
    await store.migrate();
    expect(store.clock).toBeUndefined();
    await store.close();
    await expect(openStore({ DATA_DIR: tempDir(), DATABASE_URL: "mysql://x" })).rejects.toThrow(
      /DATABASE_URL/,
    );
  });
});
