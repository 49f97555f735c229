// The install story outside a checkout (issue #36), as sdk/README.md and docs/cli.md tell it:
// `npm pack` both packages, install the two tarballs into a new ESM project, then run
// `npx stampd --version` and the SDK README's first lines there, against a real server. Also: both
// packages carry their licence, the packed SDK README's links resolve inside the tarball, and the
// SDK's types hold in a project compiled with exactOptionalPropertyTypes.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { typecheckApp } from "../helpers/packed-app.js";
import { type RunningService, startService } from "../helpers/service.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const run = promisify(execFile);
const INSTALL_TIMEOUT = 600_000;

let work: string;
let app: string;
let svc: RunningService;

const npm = async (args: string[], cwd: string) =>
  (await run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, maxBuffer: 1 << 26 }))
    .stdout;

async function pack(dir: string): Promise<string> {
  const [packed] = JSON.parse(await npm(["pack", "--json", "--pack-destination", work], dir)) as {
    filename: string;
  }[];
  return join(work, packed!.filename);
}

/**
 * The app a user makes: ESM, with the install-script decisions docs/cli.md gives (npm names a
 * tarball's package by its path), except that better-sqlite3 is not built here: a compile of
 * minutes, which `npm ci` of the checkout does anyway, and neither command below opens a database.
 */
const appPackage = (stampdTarball: string) => ({
  name: "app",
  private: true,
  type: "module",
  allowScripts: {
    [`file:${stampdTarball}`]: true,
    esbuild: true,
    "better-sqlite3": false,
    "@scarf/scarf": false,
    "core-js": false,
  },
});

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "stampd-install-"));
  app = join(work, "app");
  mkdirSync(app);
  const tarballs = await Promise.all([pack(root), pack(join(root, "sdk"))]);
  writeFileSync(join(app, "package.json"), JSON.stringify(appPackage(tarballs[0]), null, 2));
  // --strict-allow-scripts: an install script the app did not decide fails the install, so the
  // list in docs/cli.md stays complete.
  await npm(["install", "--prefer-offline", "--strict-allow-scripts", ...tarballs], app);
  svc = await startService();
}, INSTALL_TIMEOUT);
afterAll(async () => {
  await svc?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

const installed = (name: string) => join(app, "node_modules", name);

describe("stampd and @stampd/sdk installed from their packed tarballs", () => {
  it("npx stampd --version runs the installed CLI, compiled by its postinstall", async () => {
    const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
    const { stdout } = await run("npx", ["--no-install", "stampd", "--version"], { cwd: app });
    expect(stdout.trim()).toBe(version);
    expect(existsSync(join(installed("stampd"), "dist/cli/main.js"))).toBe(true);
  });

  it("runs the SDK README's first lines against a real server", async () => {
    const readme = readFileSync(join(installed("@stampd/sdk"), "README.md"), "utf8");
    const lines = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(lines).toContain("createClient");
    writeFileSync(join(app, "contract.pdf"), `%PDF-1.4 a contract ${Date.now()}\n`);
    const script = `${lines!.replaceAll("http://localhost:8080", svc.baseUrl)}
console.log(JSON.stringify({ id: stamp.stamp_id, valid: check.is_valid, matched: check.content_hash_valid }));\n`;
    writeFileSync(join(app, "readme.mjs"), script);
    const { key } = await issueKey(svc);
    const { stdout } = await run(process.execPath, ["readme.mjs"], {
      cwd: app,
      env: { ...process.env, STAMPD_API_KEY: key },
    });
    const result = JSON.parse(stdout) as { id: string; valid: boolean; matched: boolean };
    expect(result).toMatchObject({ valid: true, matched: true });
    expect((await fetch(`${svc.baseUrl}/stamps/${result.id}`)).status).toBe(200);
  });

  it("typechecks under exactOptionalPropertyTypes: every optional option takes undefined", () => {
    writeFileSync(join(app, "options.ts"), OPTIONS_CHECK);
    expect(() => typecheckApp(app, ["options.ts"], { exactOptionalPropertyTypes: true })).not.toThrow();
  }, 60_000);

  it("both packages carry the Apache-2.0 licence", () => {
    for (const name of ["stampd", "@stampd/sdk"]) {
      const manifest = JSON.parse(readFileSync(join(installed(name), "package.json"), "utf8"));
      expect(manifest.license, name).toBe("Apache-2.0");
      expect(readFileSync(join(installed(name), "LICENSE"), "utf8"), name).toContain("Apache License");
    }
  });

  it("the packed SDK README's relative links resolve inside the package", () => {
    const dir = installed("@stampd/sdk");
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!.split("#")[0]!)
      .filter((target) => target !== "" && !/^[a-z]+:/.test(target));
    expect(targets).toContain("LICENSE");
    expect(targets.filter((target) => !existsSync(join(dir, target)))).toEqual([]);
  });
});

/**
 * Each exported option type of the SDK: an optional member whose type leaves out `undefined` is
 * named in the compile error (`createClient({ apiKey: process.env.STAMPD_API_KEY })` failed so).
 */
const OPTIONS_CHECK = `
import { createClient } from "@stampd/sdk";
import type * as sdk from "@stampd/sdk";

declare const process: { env: Record<string, string | undefined> };
export const stampd = createClient({ baseUrl: "http://localhost:8080", apiKey: process.env.STAMPD_API_KEY });

type RejectsUndefined<T> = {
  [K in keyof T]-?: Record<never, never> extends Pick<T, K> ? (undefined extends Required<T>[K] ? never : K) : never;
}[keyof T];
type None<T extends never> = T;

export type Checked = [
  None<RejectsUndefined<sdk.ClientOptions>>,
  None<RejectsUndefined<sdk.ClientSocketOptions>>,
  None<RejectsUndefined<sdk.StampdSocketOptions>>,
  None<RejectsUndefined<sdk.GrpcClientOptions>>,
  None<RejectsUndefined<sdk.RequestOptions>>,
  None<RejectsUndefined<sdk.UploadOptions>>,
  None<RejectsUndefined<sdk.WaitForOptions>>,
  None<RejectsUndefined<sdk.CreateStampParams>>,
  None<RejectsUndefined<sdk.HashParams>>,
  None<RejectsUndefined<sdk.CreateFingerprintParams>>,
  None<RejectsUndefined<sdk.VerifyStampParams>>,
  None<RejectsUndefined<sdk.VerifyDocumentParams>>,
  None<RejectsUndefined<sdk.StampSearchQuery>>,
  None<RejectsUndefined<sdk.VaultListQuery>>,
  None<RejectsUndefined<sdk.ExplorerVaultsQuery>>,
  None<RejectsUndefined<sdk.VerifyStampOptions>>,
  None<RejectsUndefined<sdk.VerifyProofOptions>>,
  None<RejectsUndefined<sdk.VerifyBundleOptions>>,
  None<RejectsUndefined<sdk.FetchBundleOptions>>,
  None<RejectsUndefined<sdk.TimestampTokenOptions>>,
  None<RejectsUndefined<sdk.VerifyAnchorTokenOptions>>,
  None<RejectsUndefined<sdk.TiledStampOptions>>,
];
`;
