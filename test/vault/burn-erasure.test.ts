import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SqliteStore } from "../../server/store/sqlite/sqlite-store.js";
import { VaultFixture } from "./fixture.js";

const alice = "acc_alice";

// Issue #21: a burned vault's key stayed in stampd.db-wal (and could in freed pages) until later
// writes overwrote it. After a burn the key's bytes are in neither file, read while the server runs.
describe("burning a vault erases its key from the SQLite files", () => {
  let f: VaultFixture;
  let key: string;
  beforeEach(async () => {
    f = await VaultFixture.open({ VAULT_RETENTION_SECONDS: "3600" });
    // Larger than a page, so the key also lives in overflow pages that the burn frees.
    key = randomBytes(6000).toString("base64");
  });
  afterEach(() => f.close());

  /** The files as they are on disk now, the store still open (its WAL in use). */
  function onDisk(): { db: Buffer; wal: Buffer } {
    const path = (f.store as SqliteStore).path;
    const wal = `${path}-wal`;
    return { db: readFileSync(path), wal: existsSync(wal) ? readFileSync(wal) : Buffer.alloc(0) };
  }

  const holds = (file: Buffer) => file.includes(key) || file.includes(key.slice(1000, 1100));

  async function vaultWithHistory(allowManualRelease = false) {
    const vault = await f.create(alice, { encryptedKey: key, allowManualRelease });
    // Each heartbeat writes the row's pages to the WAL again.
    for (let i = 0; i < 3; i++) await f.vaults.heartbeat(alice, vault.id, f.receipt("0.50"));
    const before = onDisk();
    expect(holds(before.db) || holds(before.wal)).toBe(true);
    return vault;
  }

  it("by its owner", async () => {
    const vault = await vaultWithHistory();
    await f.vaults.burn(alice, vault.id, "done");
    const after = onDisk();
    expect(holds(after.db)).toBe(false);
    expect(holds(after.wal)).toBe(false);
  });

  it("when retention runs out", async () => {
    const vault = await vaultWithHistory(true);
    await f.vaults.release(alice, vault.id, "now");
    f.advance(3601);
    await f.domain.scheduler.tick();
    expect((await f.vaults.get(alice, vault.id)).state).toBe("burned");
    const after = onDisk();
    expect(holds(after.db)).toBe(false);
    expect(holds(after.wal)).toBe(false);
  });
});
