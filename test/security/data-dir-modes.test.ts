import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { startService } from "../helpers/service.js";

// Issue #21: a fresh DATA_DIR was 0755 and the database files 0644, so any local user could read
// vault ciphertext and metadata. Now the folder is 0700 and the files 0600, and a start on wider
// modes says so in one log line.
const mode = (path: string) => statSync(path).mode & 0o777;

describe("DATA_DIR and its files are the owner's only", () => {
  const parents: string[] = [];
  afterEach(() => {
    for (const dir of parents.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  function freshDataDir(): string {
    const parent = mkdtempSync(join(tmpdir(), "stampd-modes-"));
    parents.push(parent);
    return join(parent, "data");
  }

  it("creates a fresh DATA_DIR 0700, the database, its -wal and -shm and the keys 0600", async () => {
    const dataDir = freshDataDir();
    const svc = await startService({ DATA_DIR: dataDir });
    try {
      const res = await fetch(`${svc.baseUrl}/vault/fees`);
      expect(res.status).toBe(200);
      expect(mode(dataDir)).toBe(0o700);
      for (const name of ["stampd.db", "stampd.db-wal", "stampd.db-shm"]) {
        expect([name, mode(join(dataDir, name))]).toEqual([name, 0o600]);
      }
      const keys = join(dataDir, "keys");
      expect(mode(keys)).toBe(0o700);
      const keyFiles = readdirSync(keys);
      expect(keyFiles.length).toBeGreaterThan(0);
      for (const name of keyFiles) expect([name, mode(join(keys, name))]).toEqual([name, 0o600]);
    } finally {
      await svc.close();
    }
  });

  it("warns once at start, naming what is wider, and leaves the modes to the operator", async () => {
    const dataDir = freshDataDir();
    await (await startService({ DATA_DIR: dataDir })).close();
    chmodSync(dataDir, 0o755);
    chmodSync(join(dataDir, "stampd.db"), 0o644);
    const warnings: { msg: string; paths?: string[] }[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const svc = await startService({ DATA_DIR: dataDir }, { logger });
    try {
      const about = warnings.filter((w) => w.msg.includes("accessible to group or others"));
      expect(about).toHaveLength(1);
      expect(about[0]!.paths).toEqual(expect.arrayContaining([dataDir, join(dataDir, "stampd.db")]));
      expect(mode(dataDir)).toBe(0o755);
    } finally {
      await svc.close();
    }
  });

  it("says nothing when the modes are private", async () => {
    const dataDir = freshDataDir();
    await (await startService({ DATA_DIR: dataDir })).close();
    const warnings: { msg: string }[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    await (await startService({ DATA_DIR: dataDir }, { logger })).close();
    expect(warnings.filter((w) => w.msg.includes("accessible to group or others"))).toEqual([]);
  });
});
