import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningService, startService } from "../helpers/service.js";

const run = promisify(execFile);
let dataDir: string;

/** Runs `stampd <args>` as an operator would, against the temporary DATA_DIR. */
async function stampd(...args: string[]) {
  const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "silent" };
  return run(process.execPath, ["bin/stampd.js", ...args], { env });
}

async function stampdFails(...args: string[]): Promise<{ code: number; stderr: string }> {
  const err = await stampd(...args).then(
    () => undefined,
    (e: { code: number; stderr: string }) => e,
  );
  expect(err).toBeDefined();
  return err!;
}

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), "stampd-cli-"));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe("stampd keys", () => {
  let created: Record<string, string | null>;

  it("create prints the new key once, with its id, account and tier", async () => {
    // A fresh DATA_DIR: the store is created only when asked (--init).
    const { stdout, stderr } = await stampd(
      "keys",
      "create",
      "--tier",
      "premium",
      "--name",
      "ci",
      "--json",
      "--init",
    );
    created = JSON.parse(stdout);
    expect(created).toMatchObject({ tier: "premium", environment: "live", name: "ci", revoked_at: null });
    expect(created.key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    expect(created.id).toBe(`key_${created.key!.slice(9, 21)}`);
    expect(created.account_id).toMatch(/^acc_/);
    expect(stderr).toBe(`stampd: wrote to the SQLite database ${join(dataDir, "stampd.db")}\n`);
  });

  it("create adds a test key to an existing account, printing it in plain text", async () => {
    const { stdout, stderr } = await stampd(
      "keys",
      "create",
      "--tier",
      "internal",
      "--test",
      "--account",
      created.account_id!,
    );
    expect(stdout).toMatch(/^key +svc_test_[A-Za-z0-9_-]{43}$/m);
    expect(stdout).toContain(created.account_id);
    expect(stderr).toContain("shown only this once");
  });

  it("list shows ids, accounts, tiers, names and dates, never a key", async () => {
    const { stdout } = await stampd("keys", "list", "--json");
    const listed = JSON.parse(stdout) as Record<string, unknown>[];
    expect(listed).toHaveLength(2);
    expect(listed[0]).toEqual({
      id: created.id,
      account_id: created.account_id,
      tier: "premium",
      environment: "live",
      name: "ci",
      created_at: created.created_at,
      revoked_at: null,
    });
    expect(listed[1]).toMatchObject({
      account_id: created.account_id,
      tier: "internal",
      environment: "test",
    });
    const table = (await stampd("keys", "list")).stdout;
    expect(table).toContain(created.id);
    expect(table).not.toMatch(/svc_(live|test)_/);
  });

  it("the server accepts a key the CLI issued and refuses it once the CLI revokes it", async () => {
    const svc: RunningService = await startService({ DATA_DIR: dataDir, AUTH_CACHE_MS: "0" });
    try {
      const vaults = () => fetch(`${svc.baseUrl}/vault/list`, { headers: { "x-api-key": created.key! } });
      expect((await vaults()).status).not.toBe(401);
      expect((await stampd("keys", "revoke", created.id!)).stdout.trim()).toBe(`revoked ${created.id}`);
      expect((await vaults()).status).toBe(401);
      const listed = JSON.parse((await stampd("keys", "list", "--json")).stdout);
      expect(listed[0].revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect((await stampd("keys", "revoke", created.id!)).stdout.trim()).toBe(
        `${created.id} was already revoked`,
      );
    } finally {
      await svc.close();
    }
  });

  it("refuses an unknown key id, an unknown account and an unknown tier with a non-zero status", async () => {
    expect(await stampdFails("keys", "revoke", "key_doesnotexist")).toMatchObject({
      code: 1,
      stderr: expect.stringContaining("unknown key key_doesnotexist"),
    });
    expect(await stampdFails("keys", "create", "--tier", "premium", "--account", "acc_nobody")).toMatchObject(
      {
        code: 1,
        stderr: expect.stringContaining("unknown account acc_nobody"),
      },
    );
    expect((await stampdFails("keys", "create", "--tier", "anonymous")).stderr).toContain("Allowed choices");
  });
});
