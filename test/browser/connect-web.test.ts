import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { CountingBus, connectClient, sha256 } from "../grpc/fixture.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { type Browser, openBrowser } from "./browser.js";
import type { Protocol } from "./connect-web-app.js";

// svc.v1 from a page of another origin with @connectrpc/connect-web, as a browser app calls it
// (issue #36): Connect and gRPC-Web over HTTP/1.1 on the REST port, with the key in
// `authorization` (so every call is preflighted) and CORS_ORIGINS naming the page's origin.
// Chromium sends its own preflights here (`realPreflights`): the server's CORS is under test.

const app = fileURLToPath(new URL("./connect-web-app.ts", import.meta.url));

/** The app (connect-web-app.ts) as one script defining `connectWebApp`. */
async function bundleApp(): Promise<string> {
  const result = await build({
    entryPoints: [app],
    bundle: true,
    format: "iife",
    globalName: "connectWebApp",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}

/** The app's origin: a page loading the bundle, on a port of its own. */
async function servePage(script: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    if (req.url === "/app.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(script);
      return;
    }
    res.writeHead(200, { "content-type": "text/html" });
    res.end('<!doctype html><title>app</title><script src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

/** What the page's script defines. */
type AppGlobal = { connectWebApp: typeof import("./connect-web-app.js") };

const bus = new CountingBus();
let browser: Browser;
let appServer: http.Server;
let appOrigin: string;
let svc: RunningService;

beforeAll(async () => {
  let bundle: string;
  [browser, bundle] = await Promise.all([openBrowser({ realPreflights: true }), bundleApp()]);
  appServer = await servePage(bundle);
  appOrigin = `http://127.0.0.1:${(appServer.address() as AddressInfo).port}`;
  svc = await startService({ CORS_ORIGINS: appOrigin }, { events: bus });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await new Promise((resolve) => appServer?.close(resolve));
});
afterEach(() => {
  expect(browser.errors.splice(0)).toEqual([]);
});

async function openApp(origin = appOrigin): Promise<Page> {
  const tab = await browser.newPage();
  await tab.goto(`${origin}/`);
  await tab.waitForFunction(() => "connectWebApp" in globalThis);
  return tab;
}

describe.each<Protocol>(["connect", "grpc-web"])("connect-web over %s from another origin", (protocol) => {
  it("stamps, reads back, reads the items budget's headers and gets NOT_FOUND", async () => {
    const tab = await openApp();
    const { key } = await issueKey(svc);
    const hash = sha256(`stamped from a browser over ${protocol}`);
    const got = await tab.evaluate(
      async (input) => {
        const { stampClient } = (globalThis as unknown as AppGlobal).connectWebApp;
        const client = stampClient(input.protocol, input.baseUrl, input.key);
        const { stamp } = await client.createStamp({ contentHash: input.hash });
        const read = await client.getStamp({ stampId: stamp!.id });
        let itemsLeft: string | null = null;
        const batch = await client.batchStamp(
          { items: [{ contentHash: input.hash }] },
          { onHeader: (h) => (itemsLeft = h.get("x-ratelimit-items-remaining")) },
        );
        const missing = await client.getStamp({ stampId: `stp_${"0".repeat(26)}` }).then(
          () => null,
          (e: { code: number; rawMessage: string }) => ({ code: e.code, message: e.rawMessage }),
        );
        return {
          id: stamp!.id,
          contentHash: stamp!.contentHash,
          readId: read.stamp!.id,
          batched: batch.successCount,
          itemsLeft,
          missing,
        };
      },
      { protocol, baseUrl: svc.baseUrl, key, hash },
    );
    await tab.close();
    // Connect answers NOT_FOUND with HTTP 404, which Chromium logs; gRPC-Web with 200.
    const logged = protocol === "connect" ? ["status of 404 (Not Found)"] : [];
    expect(browser.errors.splice(0).map((e) => e.replace(/^.* with a /, ""))).toEqual(logged);
    expect(got).toMatchObject({ contentHash: hash, readId: got.id, batched: 1 });
    expect(Number(got.itemsLeft)).toBeGreaterThan(0);
    // Code.NotFound: gRPC-Web sends it in headers the page may read only if they are exposed.
    expect(got.missing).toMatchObject({ code: 5, message: expect.stringContaining("not found") });
  });

  it("watches stamps (server streaming) and gets the next one made", async () => {
    const tab = await openApp();
    const { key } = await issueKey(svc);
    const hash = sha256(`watched from a browser over ${protocol}`);
    const before = bus.listenerCount;
    await tab.evaluate(
      (input) => {
        const { stampClient } = (globalThis as unknown as AppGlobal).connectWebApp;
        const client = stampClient(input.protocol, input.baseUrl, input.key);
        const watched = (async () => {
          for await (const stamp of client.watchStamps({ filter: `protocol=${input.protocol}` })) {
            return { contentHash: stamp.contentHash, metadata: stamp.metadata };
          }
        })();
        Object.assign(globalThis, { watched });
      },
      { protocol, baseUrl: svc.baseUrl, key, hash },
    );
    await bus.waitForListeners(before + 1);
    const maker = await issueKey(svc);
    await connectClient(svc, { "x-api-key": maker.key }).createStamp({
      contentHash: hash,
      metadata: { protocol },
    });
    const watched = await tab.evaluate(
      () => (globalThis as unknown as { watched: Promise<unknown> }).watched,
    );
    await tab.close();
    expect(watched).toEqual({ contentHash: hash, metadata: { protocol } });
  });
});

it("refuses a page of an origin CORS_ORIGINS does not name", async () => {
  // Another origin for the same page: localhost is not 127.0.0.1.
  const tab = await openApp(appOrigin.replace("127.0.0.1", "localhost"));
  const { key } = await issueKey(svc);
  const failed = await tab.evaluate(
    async (input) => {
      const { stampClient } = (globalThis as unknown as AppGlobal).connectWebApp;
      const client = stampClient(input.protocol, input.baseUrl, input.key);
      return client.createStamp({ contentHash: input.hash }).then(
        () => null,
        (e: { rawMessage: string }) => e.rawMessage,
      );
    },
    { protocol: "connect" as Protocol, baseUrl: svc.baseUrl, key, hash: sha256("refused") },
  );
  await tab.close();
  expect(failed).toMatch(/fetch/i);
  const errors = browser.errors.splice(0);
  expect(errors.some((e) => e.includes("blocked by CORS policy"))).toBe(true);
});
