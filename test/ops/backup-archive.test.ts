import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import {
  appendFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, extract } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { stampd } from "./cli.js";

let root: string;
let backup: string;
let serviceKey: string;
const path = (name: string) => join(root, name);

// A deployment whose keys live outside DATA_DIR: a signing key file elsewhere, the at-rest key in
// the environment. The backup must carry them, so the restored folder runs without those settings.
const external = {
  SERVICE_SIGNING_KEY_FILE: "",
  AT_REST_KEY: randomBytes(32).toString("hex"),
};

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "stampd-ops-archive-"));
  external.SERVICE_SIGNING_KEY_FILE = path("signing.pem");
  const pem = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" });
  writeFileSync(external.SERVICE_SIGNING_KEY_FILE, pem, { mode: 0o600 });
  const env = { ...external, DATA_DIR: path("data"), RATE_LIMIT_ENABLED: "false" };
  const svc = await startService(env);
  serviceKey = svc.service.ctx.keys.signing.publicKey;
  await createStamp(svc, "kept", { preset: "casual" });
  await svc.close();
  backup = path("external.tar.gz");
  const run = await stampd(env, "backup", backup);
  expect(run.code, run.stderr).toBe(0);
  expect(run.stdout).toContain(`keys/service-ed25519.pem`);
  expect(run.stdout).toContain(`(from SERVICE_SIGNING_KEY_FILE=${external.SERVICE_SIGNING_KEY_FILE})`);
  expect(run.stdout).toMatch(/keys\/at-rest\.key .*\(from AT_REST_KEY\)/);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Unpacks the backup, lets `change` alter it, and packs it again as `name`. */
async function tampered(name: string, change: (dir: string) => void): Promise<string> {
  const dir = mkdtempSync(path("unpacked-"));
  await extract({ file: backup, cwd: dir });
  change(dir);
  await create({ gzip: true, file: path(name), cwd: dir }, readdirSync(dir));
  return path(name);
}

describe("stampd backup archive", () => {
  it("carries keys configured outside DATA_DIR, restored under their default names (0600 in a 0700 folder)", async () => {
    const target = path("restored");
    const run = await stampd({ DATA_DIR: target }, "restore", backup);
    expect(run.code, run.stderr).toBe(0);
    expect(statSync(join(target, "keys")).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(join(target, "keys"))) {
      expect(statSync(join(target, "keys", name)).mode & 0o777, name).toBe(0o600);
    }
    const svc = await startService({ DATA_DIR: target });
    try {
      expect(svc.service.ctx.keys.signing.publicKey).toBe(serviceKey);
    } finally {
      await svc.close();
    }
  });

  it("carries the at-rest key AT_REST_KEY_COMMAND prints, so the restored folder opens the key ring without it", async () => {
    const keyFile = path("kms-answer");
    writeFileSync(keyFile, `${external.AT_REST_KEY}\n`, { mode: 0o600 });
    const env = {
      DATA_DIR: path("data"),
      SERVICE_SIGNING_KEY_FILE: external.SERVICE_SIGNING_KEY_FILE,
      AT_REST_KEY_COMMAND: `cat ${keyFile}`,
    };
    const file = path("command.tar.gz");
    const run = await stampd(env, "backup", file);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/keys\/at-rest\.key .*\(from AT_REST_KEY_COMMAND\)/);
    const target = path("restored-command");
    expect((await stampd({ DATA_DIR: target }, "restore", file)).code).toBe(0);
    expect(readFileSync(join(target, "keys", "at-rest.key"), "utf8").trim()).toBe(external.AT_REST_KEY);
    const svc = await startService({ DATA_DIR: target });
    try {
      expect(svc.service.ctx.keys.signing.publicKey).toBe(serviceKey);
    } finally {
      await svc.close();
    }
  });

  it.each([
    [
      "a member changed after the manifest was written",
      (dir: string) => appendFileSync(join(dir, "keys", "at-rest.key"), "0"),
      "keys/at-rest.key does not match its SHA-256 in the manifest",
    ],
    [
      "a member the manifest does not list",
      (dir: string) => writeFileSync(join(dir, "keys", "extra.pem"), "smuggled"),
      "holds files its manifest does not list: keys/extra.pem",
    ],
    [
      "a damaged database whose manifest was rewritten to match",
      (dir: string) => {
        const db = join(dir, "stampd.db");
        const bytes = readFileSync(db);
        bytes.fill(0x5a, 4096 + 100, 4096 * 3); // inside the b-tree pages after the schema page
        writeFileSync(db, bytes);
        const manifestPath = join(dir, "manifest.json");
        const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
        const entry = manifest.files.find((f: { path: string }) => f.path === "stampd.db");
        entry.sha256 = createHash("sha256").update(bytes).digest("hex");
        writeFileSync(manifestPath, JSON.stringify(manifest));
      },
      "the database in the backup fails its integrity check",
    ],
    [
      "a missing manifest",
      (dir: string) => rmSync(join(dir, "manifest.json")),
      "not a stampd backup: it has no readable manifest.json",
    ],
  ])("refuses %s and leaves no data folder", async (name, change, message) => {
    const file = await tampered(`${name.replaceAll(" ", "-")}.tar.gz`, change);
    const target = path(`restore-${randomBytes(4).toString("hex")}`);
    const { code, stderr } = await stampd({ DATA_DIR: target }, "restore", file);
    expect(code).not.toBe(0);
    expect(stderr).toContain(message);
    expect(() => statSync(target)).toThrow();
    expect(readdirSync(root).filter((entry) => entry.includes(".restore-"))).toEqual([]);
  });

  it("a keys-only backup refuses to run without any key file", async () => {
    const { code, stderr } = await stampd(
      { DATA_DIR: path("empty") },
      "backup",
      "--keys-only",
      path("none.tar.gz"),
    );
    expect(code).not.toBe(0);
    expect(stderr).toContain("nothing to back up");
    expect(() => statSync(path("none.tar.gz"))).toThrow();
  });
});
