import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { filePart, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createIdentity, createStamp, type StampResponse, type VerifyResponse } from "../stamps/helpers.js";
import { stampd } from "./cli.js";

interface Acknowledged {
  content: string;
  stamp: StampResponse;
}

/** Posts stamps one after another until `stop()`, recording every one the server acknowledged (201). */
class WriteLoad {
  readonly acknowledged: Acknowledged[] = [];
  private stopped = false;
  private readonly loops: Promise<void>[];
  private reached?: { count: number; resolve: () => void };

  constructor(
    private readonly svc: RunningService,
    concurrency: number,
  ) {
    this.loops = Array.from({ length: concurrency }, (_, n) => this.loop(n));
  }

  /** Resolves once `count` stamps have been acknowledged. */
  until(count: number): Promise<void> {
    return new Promise((resolve) => {
      this.reached = { count, resolve };
      this.check();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }

  private async loop(n: number): Promise<void> {
    for (let i = 0; !this.stopped; i++) {
      const content = `document ${n}-${i} ${Math.random()}`;
      this.acknowledged.push({ content, stamp: await createStamp(this.svc, content, { preset: "casual" }) });
      this.check();
    }
  }

  private check(): void {
    if (this.reached && this.acknowledged.length >= this.reached.count) this.reached.resolve();
  }
}

async function verify(svc: RunningService, stampId: string, content: string): Promise<VerifyResponse> {
  const res = await postParts(`${svc.baseUrl}/stamps/${stampId}/verify`, [filePart(content)]);
  expect(res.status).toBe(200);
  return res.json();
}

let root: string;
let source: RunningService;
const path = (name: string) => join(root, name);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "stampd-ops-"));
  source = await startService({ RATE_LIMIT_ENABLED: "false" });
});
afterAll(async () => {
  await source.close();
  rmSync(root, { recursive: true, force: true });
});

describe("stampd backup and restore (SQLite)", () => {
  it("a backup taken under write load restores to a server where every stamp acknowledged before it verifies", async () => {
    const { key } = await issueKey(source);
    const identityId = await createIdentity(source, key);
    const load = new WriteLoad(source, 3);
    await load.until(150);
    await source.service.proofs.pipeline.tick(); // some stamps in a sealed batch and the log, too
    const before = [...load.acknowledged];
    const backup = await stampd({ DATA_DIR: source.dataDir }, "backup", path("load.tar.gz"));
    const duringBackup = load.acknowledged.length - before.length;
    await load.stop();
    expect(backup.code, backup.stderr).toBe(0);
    expect(duringBackup).toBeGreaterThan(0); // the server kept writing while the backup ran

    const restoredDir = mkdtempSync(path("restored-"));
    const restore = await stampd({ DATA_DIR: restoredDir }, "restore", path("load.tar.gz"));
    expect(restore.code, restore.stderr).toBe(0);
    const db = new Database(join(restoredDir, "stampd.db"), { readonly: true });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();

    const restored = await startService({ DATA_DIR: restoredDir, RATE_LIMIT_ENABLED: "false" });
    try {
      const serviceKey = source.service.ctx.keys.signing.publicKey;
      expect(restored.service.ctx.keys.signing.publicKey).toBe(serviceKey);
      for (const { content, stamp } of before) {
        const stored = await fetch(`${restored.baseUrl}/stamps/${stamp.stamp_id}`);
        expect(stored.status, stamp.stamp_id).toBe(200);
        expect((await stored.json()).stamp_json).toEqual(stamp.stamp_json);
        const result = await verify(restored, stamp.stamp_id, content);
        expect(result.is_valid, stamp.stamp_id).toBe(true);
        expect(result.details).toMatchObject({ service_signature: "valid", content_hash: "match" });
      }
      // Stamps acknowledged while the backup ran may or may not be in it; those that are verify too.
      for (const { content, stamp } of load.acknowledged.slice(before.length)) {
        const stored = await fetch(`${restored.baseUrl}/stamps/${stamp.stamp_id}`);
        if (stored.status === 404) continue;
        expect((await verify(restored, stamp.stamp_id, content)).is_valid).toBe(true);
      }
      // A new stamp signed by the identity made before the backup: its private key, sealed in the
      // database, opens with the restored at-rest key.
      const fields = { preset: "casual", identity_id: identityId };
      const fresh = await createStamp(restored, "after the restore", fields, { key });
      const result = await verify(restored, fresh.stamp_id, "after the restore");
      expect(result.is_valid).toBe(true);
      expect(result.details.author_signature).toBe("valid");
    } finally {
      await restored.close();
      rmSync(restoredDir, { recursive: true, force: true });
    }
  });

  it("writes the archive with mode 0600, a manifest of checksums, and a loud warning about the keys", async () => {
    const { code, stdout, stderr } = await stampd(
      { DATA_DIR: source.dataDir },
      "backup",
      path("plain.tar.gz"),
    );
    expect(code, stderr).toBe(0);
    expect(statSync(path("plain.tar.gz")).mode & 0o777).toBe(0o600);
    expect(stderr).toMatch(/^WARNING: .*plain\.tar\.gz contains the service's SECRET KEYS/m);
    for (const member of ["stampd.db", "keys/service-ed25519.pem", "keys/at-rest.key", "keys/tsa.pem"]) {
      expect(stdout).toContain(member);
    }
    const again = await stampd({ DATA_DIR: source.dataDir }, "backup", path("plain.tar.gz"));
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already exists");
  });

  it("refuses to restore into a folder that is not empty, and leaves it as it was", async () => {
    const dir = mkdtempSync(path("busy-"));
    writeFileSync(join(dir, "notes.txt"), "mine");
    const { code, stderr } = await stampd({ DATA_DIR: dir }, "restore", path("plain.tar.gz"));
    expect(code).not.toBe(0);
    expect(stderr.trim()).toMatch(
      /^stampd: DATA_DIR .* is not empty \(notes\.txt\): restore only fills an empty folder/,
    );
    expect(readFileSync(join(dir, "notes.txt"), "utf8")).toBe("mine");
  });

  it("refuses a corrupted archive and leaves no data folder behind", async () => {
    const bytes = readFileSync(path("plain.tar.gz"));
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(path("corrupt.tar.gz"), bytes);
    const target = path("from-corrupt");
    const { code, stderr } = await stampd({ DATA_DIR: target }, "restore", path("corrupt.tar.gz"));
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/not a readable stampd backup|damaged|integrity/);
    expect(() => statSync(target)).toThrow();
  });
});
