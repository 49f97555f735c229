import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("the SQLite log table", () => {
  it("refuses to change or remove an entry", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stampd-log-"));
    dirs.push(dir);
    const store = new SqliteStore(join(dir, "stampd.db"));
    await store.migrate();
    store.db
      .prepare(
        `INSERT INTO batches (id, sealed_at, tree_size, root, signature, public_key)
         VALUES ('bat_1', '2026-01-01T00:00:00.000Z', 1, zeroblob(32), '', '')`,
      )
      .run();
    expect(await store.log.appendSealed(new Date(), (root) => root)).toBe(1);
    expect(() => store.db.prepare("UPDATE log_entries SET leaf_hash = zeroblob(32)").run()).toThrow(
      /append-only/,
    );
    expect(() => store.db.prepare("DELETE FROM log_entries").run()).toThrow(/append-only/);
    expect(await store.log.entriesFrom(0)).toHaveLength(1);
    await store.close();
  });
});
