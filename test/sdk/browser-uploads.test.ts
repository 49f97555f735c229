import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Browser, openBrowser } from "../browser/browser.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";

// The SDK's uploads in Chromium against a real service: bundled for browsers by esbuild, it sends
// a FormData (the browser reads the parts itself) and reads a stream into memory first.

const sdkEntry = fileURLToPath(new URL("../../sdk/src/index.ts", import.meta.url));
const TEXT = "a document uploaded from a browser\n";

let svc: RunningService;
let browser: Browser;
let key: string;
let bundle: string;

/** The SDK as one script defining `stampdSdk`, as an app's bundler would build it for browsers. */
async function bundleSdk(): Promise<string> {
  const result = await build({
    stdin: { contents: `export { createClient } from ${JSON.stringify(sdkEntry)};`, resolveDir: "." },
    bundle: true,
    format: "iife",
    globalName: "stampdSdk",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

beforeAll(async () => {
  [svc, browser, bundle] = await Promise.all([
    startService({ RATE_LIMIT_ENABLED: "false" }),
    openBrowser(),
    bundleSdk(),
  ]);
  key = (await issueKey(svc)).key;
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});
afterEach(() => {
  expect(browser.blocked.splice(0)).toEqual([]);
  expect(browser.errors.splice(0)).toEqual([]);
});

describe("SDK uploads in a browser", () => {
  it("stamps and hashes a Blob, bytes and a ReadableStream", async () => {
    const page = await browser.newPage();
    const contentTypes: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") contentTypes.push(request.headers()["content-type"] ?? "");
    });
    await page.goto(`${svc.baseUrl}/health`);
    await page.evaluate(bundle);
    const sent = await page.evaluate(
      async ({ baseUrl, apiKey, text }) => {
        const { createClient } = (
          globalThis as unknown as { stampdSdk: typeof import("../../sdk/src/index.js") }
        ).stampdSdk;
        const client = createClient({ baseUrl, apiKey });
        const stamp = await client.stamps.create({ file: new File([text], "letter.txt"), preset: "casual" });
        const bytes = await client.hash.create({ file: new TextEncoder().encode(text) });
        const stream = await client.hash.create({ file: new Blob([text]).stream(), filename: "piped.txt" });
        return { stamp, bytes, stream };
      },
      { baseUrl: svc.baseUrl, apiKey: key, text: TEXT },
    );
    await page.close();
    const sha3 = createHash("sha3-256").update(TEXT).digest("hex");
    expect(sent.stamp).toMatchObject({ document_hash: sha3 });
    expect(sent.bytes).toMatchObject({ hash: sha3, filename: "upload", size_bytes: TEXT.length });
    expect(sent.stream).toMatchObject({ hash: sha3, filename: "piped.txt", size_bytes: TEXT.length });
    // Chromium's own FormData encoding, not the one the SDK streams on Node.
    expect(contentTypes).toHaveLength(3);
    for (const type of contentTypes)
      expect(type).toMatch(/^multipart\/form-data; boundary=----WebKitFormBoundary/);
  });

  it("calls onUploadProgress with 0 at the start and the size once sent (fetch shows no more)", async () => {
    const page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/health`);
    await page.evaluate(bundle);
    const progress = await page.evaluate(
      async ({ baseUrl, apiKey, text }) => {
        const { createClient } = (
          globalThis as unknown as { stampdSdk: typeof import("../../sdk/src/index.js") }
        ).stampdSdk;
        const seen: { loaded: number; total: number | undefined }[] = [];
        await createClient({ baseUrl, apiKey }).stamps.create(
          { file: new Blob([text]) },
          { onUploadProgress: (p) => seen.push(p) },
        );
        return seen;
      },
      { baseUrl: svc.baseUrl, apiKey: key, text: TEXT },
    );
    await page.close();
    expect(progress).toEqual([
      { loaded: 0, total: TEXT.length },
      { loaded: TEXT.length, total: TEXT.length },
    ]);
  });
});
