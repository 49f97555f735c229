import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { StampdSocket } from "../../sdk/src/ws/client.js";
import { type Browser, openBrowser } from "../browser/browser.js";
import { startPagesService } from "../browser/pages-service.js";
import { digests } from "../browser/stamps.js";
import { grpcJsStampClient, metadata as grpcMetadata } from "../grpc/fixture.js";
import { type GrpcJsClient, unary } from "../helpers/grpc-js.js";
import { issueKey } from "../helpers/keys.js";
import type { RunningService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { encryptedKey, newRecipient } from "../vault/fixture.js";

// HTML and script injection (OWASP: stored XSS) through every free-text field a client can set,
// over every transport, into every page that renders stored data: the verification page, its 404
// page, the dashboard (whose live event list shows what other clients do), and the API reference
// pages. Each payload calls alert() or sets window.pwned if it ever runs; Chromium records dialogs
// and console errors (a CSP refusal is one), so a payload the escaping missed fails the test even
// where the CSP would have blocked it.
const payloads = [
  `<script>alert("script")</script>`,
  `"><img src=x onerror=alert("img")>`,
  `'><svg onload=alert("svg")>`,
  `</textarea></title></style><script>window.pwned=1</script>`,
  `javascript:alert("href")`,
  `{{constructor.constructor('alert("template")')()}}`,
  `<iframe srcdoc="<script>parent.alert('frame')</script>">`,
];
const hostile = (i: number) => payloads[i % payloads.length]!;
const hostileMap = () => Object.fromEntries(payloads.map((p, i) => [`${p}#${i}`.slice(0, 64), p]));

let svc: RunningService;
let browser: Browser;
let page: Page;
let grpc: GrpcJsClient;
let key: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startPagesService({ BATCH_INTERVAL_MS: "3600000" }), openBrowser()]);
  grpc = grpcJsStampClient(svc);
  key = (await issueKey(svc)).key;
});
afterAll(async () => {
  grpc?.close();
  await browser?.close();
  await svc?.close();
});
afterEach(async () => {
  if (page && !page.isClosed()) {
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
    await page.close();
  }
  expect(browser.dialogs.splice(0)).toEqual([]);
  expect(browser.blocked.splice(0)).toEqual([]);
  expect(browser.errors.splice(0)).toEqual([]);
});

/** Elements that only hostile text could have made inside `scope`: inline scripts, images, SVG, frames. */
const madeByText = (scope = "main") =>
  page
    .locator(`script:not([src]), ${["script", "img", "svg", "iframe"].map((tag) => `${scope} ${tag}`)}`)
    .count();

/** Stamps made with hostile text in every field each transport takes. */
async function hostileStamps(): Promise<string[]> {
  const rest = await Promise.all(
    payloads.map((p, i) => createStamp(svc, `rest ${i}`, { version: p }).then((s) => s.stamp_id)),
  );
  const viaGrpc = await unary<{ stamp: { id: string } }>(
    grpc,
    "CreateStamp",
    {
      content_hash: `sha256:${digests.sha256("grpc hostile")}`,
      description: payloads.join(" "),
      metadata: hostileMap(),
    },
    grpcMetadata({}),
  );
  const socket = new StampdSocket({ url: `${svc.baseUrl.replace(/^http/, "ws")}/ws`, WebSocket });
  try {
    const viaWs = await socket.stamp({
      contentHash: `sha256:${digests.sha256("ws hostile")}`,
      metadata: hostileMap(),
    });
    return [...rest, viaGrpc.stamp.id, viaWs.id];
  } finally {
    socket.close();
  }
}

/** A vault, a heartbeat group and a release, each with hostile text wherever the API takes text. */
async function hostileVaultActivity(): Promise<string> {
  const call = async (path: string, body: unknown) => {
    const res = await fetch(`${svc.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
    return res.json();
  };
  const vault = await call("/vault/create", {
    encrypted_key: encryptedKey,
    heartbeat_deadline: 86_400,
    recipient_public_key: newRecipient().publicKey,
    allow_manual_release: true,
    metadata: hostileMap(),
    content_uris: [`https://example.org/${encodeURIComponent(hostile(1))}`],
  });
  await call("/vault/group/create", { name: hostile(0), vault_ids: [vault.id], interval: 3600 });
  await call(`/vault/${vault.id}/add-mirror`, { uri: `https://example.org/"><script>alert(1)</script>` });
  await call(`/vault/${vault.id}/release`, { reason: hostile(3) });
  return vault.id;
}

describe("stored text", () => {
  it("is shown literally on the verification page of stamps made over REST, gRPC and WebSocket", async () => {
    for (const id of await hostileStamps()) {
      const source = await (await fetch(`${svc.baseUrl}/verify/${id}`)).text();
      expect(source).not.toMatch(/<(script>alert|img src=x|svg onload|iframe)/);
      page = await browser.newPage();
      await page.goto(`${svc.baseUrl}/verify/${id}`);
      await page.waitForLoadState("load");
      expect(await madeByText()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
      await page.close();
    }
  });

  it("renders description and metadata as text, character for character", async () => {
    const [id] = (await hostileStamps()).slice(-2);
    page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/verify/${id}`);
    expect(await page.locator(".details .text").textContent()).toBe(payloads.join(" "));
    expect(await page.locator(".metadata dd").allTextContents()).toEqual(expect.arrayContaining(payloads));
  });

  it("comes and goes through the dashboard's live event list without running", async () => {
    page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/dashboard`);
    await expect.poll(() => page.locator("#connection").textContent()).toContain("Live");
    const stamps = await hostileStamps();
    const vaultId = await hostileVaultActivity();
    await expect.poll(() => page.locator("#events").textContent()).toContain(vaultId);
    for (const id of stamps) expect(await page.locator("#events").textContent()).toContain(id);
    // The chart is SVG; the event list holds only what the page made with textContent.
    expect(await madeByText("#events")).toBe(0);
  });
});

describe("text in the address", () => {
  it.each(payloads)("of the verification page is escaped on its 404 page: %s", async (payload) => {
    page = await browser.newPage();
    const response = await page.goto(`${svc.baseUrl}/verify/${encodeURIComponent(payload)}`);
    expect(response!.status()).toBe(404);
    expect(await page.locator(".verdict code").textContent()).toBe(payload);
    expect(await madeByText()).toBe(0);
    // Chromium logs the 404 document itself; nothing else may fail.
    expect(browser.errors.splice(0)).toEqual([expect.stringMatching(/status of 404/)]);
  });

  it.each(["/docs", "/redoc"])("of %s cannot point the reference page at another spec", async (path) => {
    const attack = encodeURIComponent("https://evil.example/spec.json");
    for (const query of [`url=${attack}`, `configUrl=${attack}`, `spec-url=${attack}`]) {
      expect((await fetch(`${svc.baseUrl}${path}?${query}`)).status).toBe(400);
    }
  });

  it.each(["/docs#/", "/redoc#"])(
    "of %s<payload>, in the fragment the server never sees, runs nothing",
    async (path) => {
      // The two reference bundles are heavy: two payloads, one per kind (element, attribute).
      for (const payload of payloads.slice(0, 2)) {
        page = await browser.newPage();
        await page.goto(`${svc.baseUrl}${path}${encodeURIComponent(payload)}`);
        await page.waitForLoadState("networkidle");
        expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined();
        await page.close();
      }
      // Redoc hard-codes a logo from its CDN, which the CSP refuses (server/pages/security-headers.ts).
      const errors = browser.errors.splice(0).filter((e) => !e.includes("https://cdn.redoc.ly/"));
      expect(errors).toEqual([]);
    },
  );
});
