import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { filePart, postParts } from "../helpers/multipart.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createIdentity, createStamp, type StampResponse, type VerifyResponse } from "../stamps/helpers.js";
import { stampd } from "./cli.js";
import { admin, databaseUrl, pgTool } from "./postgres-tools.js";

// Two whole databases (not schemas): pg_dump and pg_restore work on databases, as an operator runs them.
const suffix = randomBytes(6).toString("hex");
const original = `stampd_backup_${suffix}`;
const restoredDb = `stampd_restored_${suffix}`;
let root: string;
const path = (name: string) => join(root, name);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "stampd-ops-pg-"));
  await admin(`CREATE DATABASE ${original}`);
});
afterAll(async () => {
  for (const name of [original, restoredDb]) await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  rmSync(root, { recursive: true, force: true });
});

async function verify(svc: RunningService, stampId: string, content: string): Promise<VerifyResponse> {
  const res = await postParts(`${svc.baseUrl}/stamps/${stampId}/verify`, [filePart(content)]);
  expect(res.status).toBe(200);
  return res.json();
}

describe("PostgreSQL: pg_dump, pg_restore and the key files", () => {
  it("stampd backup refuses the database with one line pointing to pg_dump", async () => {
    const { code, stderr } = await stampd(
      { DATABASE_URL: databaseUrl(original), DATA_DIR: path("unused") },
      "backup",
      path("x.tar.gz"),
    );
    expect(code).not.toBe(0);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toContain("pg_dump -Fc");
    expect(stderr).toContain("--keys-only");
  });

  it("a pg_dump -Fc restored with pg_restore, plus the keys-only backup, runs a server where every stamp verifies", async () => {
    const dataDir = path("data");
    const env = { DATABASE_URL: databaseUrl(original), DATA_DIR: dataDir, RATE_LIMIT_ENABLED: "false" };
    const source = await startService(env);
    const made: { content: string; stamp: StampResponse }[] = [];
    let key: string;
    let identityId: string;
    try {
      key = (await issueKey(source)).key;
      identityId = await createIdentity(source, key);
      for (let i = 0; i < 20; i++) {
        const content = `pg document ${i}`;
        const fields: Record<string, string> =
          i % 2 ? { preset: "casual" } : { preset: "casual", identity_id: identityId };
        made.push({ content, stamp: await createStamp(source, content, fields, { key }) });
      }
      await source.service.proofs.pipeline.tick(); // batches, the log and its checkpoint in the dump too
      // Both while the server runs: pg_dump reads one consistent snapshot.
      await pgTool("pg_dump", "-Fc", "-f", path("stampd.dump"), "--dbname", original);
      const keys = await stampd({ ...env }, "backup", "--keys-only", path("keys.tar.gz"));
      expect(keys.code, keys.stderr).toBe(0);
      expect(keys.stdout).not.toContain("stampd.db");
    } finally {
      await source.close();
    }

    await pgTool("createdb", restoredDb);
    await pgTool("pg_restore", "--no-owner", "--exit-on-error", "--dbname", restoredDb, path("stampd.dump"));
    const restoredDir = path("restored");
    const restoredEnv = {
      DATABASE_URL: databaseUrl(restoredDb),
      DATA_DIR: restoredDir,
      RATE_LIMIT_ENABLED: "false",
    };
    const restore = await stampd(restoredEnv, "restore", path("keys.tar.gz"));
    expect(restore.code, restore.stderr).toBe(0);

    const restored = await startService(restoredEnv);
    try {
      for (const { content, stamp } of made) {
        const result = await verify(restored, stamp.stamp_id, content);
        expect(result.is_valid, stamp.stamp_id).toBe(true);
        expect(result.details.service_signature).toBe("valid");
      }
      // New stamps work, including one signed by an identity: its private key opens with the restored at-rest key.
      const fresh = await createStamp(
        restored,
        "after pg_restore",
        { preset: "casual", identity_id: identityId },
        { key },
      );
      const result = await verify(restored, fresh.stamp_id, "after pg_restore");
      expect(result.is_valid).toBe(true);
      expect(result.details.author_signature).toBe("valid");
    } finally {
      await restored.close();
    }
  });
});
