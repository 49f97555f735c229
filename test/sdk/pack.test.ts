import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { typecheckApp } from "../helpers/packed-app.js";

// The SDK as an app gets it: `npm pack` (which builds it), installed into an empty folder, then a
// TypeScript file using it must typecheck against the published .d.ts files (with no @types/node
// and without skipLibCheck) and a script must run against the published JavaScript.
const root = fileURLToPath(new URL("../..", import.meta.url));
let work: string;
let app: string;

const npm = (args: string[], cwd: string) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    stdio: "pipe",
  });

/** Installs from npm's cache when it has everything (CI ran npm ci before), else from the registry. */
function install(tarball: string) {
  try {
    npm(["install", "--offline", tarball], app);
  } catch {
    npm(["install", "--prefer-offline", tarball], app);
  }
}

const usage = `
import {
  APIError, createClient, createGrpcClient, NotFoundError, RateLimitError, type Schemas,
  verifyFingerprintProof, verifyStamp,
} from "@stampd/sdk";

const stampd = createClient({ baseUrl: "http://localhost:8080", apiKey: "svc_test_x", maxRetries: 1 });
export async function use(doc: Uint8Array): Promise<string[]> {
  const stamp: Schemas["StampResponse"] = await stampd.stamps.create({ file: doc, preset: "standard" });
  const check = await verifyStamp(stamp.stamp_json, { document: doc });
  const ids: string[] = [];
  for await (const vault of stampd.vault.list({ state: "active" })) ids.push(vault.id);
  const page = await stampd.explorer.vaults({ limit: 10 });
  if (page.hasNextPage()) await page.nextPage();
  try {
    await stampd.presets.get("gold");
  } catch (e) {
    if (e instanceof NotFoundError || e instanceof RateLimitError) ids.push(String(e.status));
    if (e instanceof APIError) ids.push(e.requestId ?? "");
  }
  const grpc = createGrpcClient({ baseUrl: "http://localhost:50051", apiKey: "svc_test_x" });
  for await (const s of grpc.watch("")) ids.push(s.id);
  ids.push(String(verifyFingerprintProof).length > 0 ? "ok" : "", String(check.is_valid));
  return ids;
}
`;

const smoke = `
import { createClient, NotFoundError } from "@stampd/sdk";
const presets = [{ name: "casual" }];
const fetch = async (req) => new URL(req.url).pathname === "/presets"
  ? Response.json(presets)
  : Response.json({ detail: "nope", code: "preset_not_found" }, { status: 404 });
const stampd = createClient({ baseUrl: "http://stampd.test", fetch });
const list = await stampd.presets.list();
const error = await stampd.presets.get("gold").catch((e) => e);
console.log(JSON.stringify({ list, notFound: error instanceof NotFoundError, code: error.code }));
`;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "stampd-pack-"));
  app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  const [packed] = JSON.parse(npm(["pack", "--json", "--pack-destination", work], join(root, "sdk"))) as {
    filename: string;
  }[];
  install(join(work, packed!.filename));
}, 180_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

it("the packed SDK typechecks in an app of its own", () => {
  writeFileSync(join(app, "use.ts"), usage);
  expect(() => typecheckApp(app, ["use.ts"])).not.toThrow();
}, 60_000);

it("the packed SDK runs with only its declared dependencies", () => {
  writeFileSync(join(app, "smoke.mjs"), smoke);
  const out = execFileSync(process.execPath, ["smoke.mjs"], { cwd: app, encoding: "utf8" });
  expect(JSON.parse(out)).toEqual({ list: [{ name: "casual" }], notFound: true, code: "preset_not_found" });
});
