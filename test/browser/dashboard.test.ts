import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { RestCalls } from "../helpers/rest-calls.js";
import type { RunningService } from "../helpers/service.js";
import { createStamp, sha3 } from "../stamps/helpers.js";
import { accessibilityViolations } from "./accessibility.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";

// The dashboard in Chromium: it follows /ws and changes without a reload when stamps and vaults
// are created, and shows the transparency log's checkpoint when the service publishes one.

let svc: RunningService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startPagesService(), openBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});
afterEach(async () => {
  await page?.close();
  expect(browser.blocked.splice(0)).toEqual([]);
  expect(browser.errors.splice(0)).toEqual([]);
});

const count = (name: string) => page.locator(`[data-count="${name}"]`).textContent();

async function openDashboard(): Promise<void> {
  page = await browser.newPage();
  const response = await page.goto(`${svc.baseUrl}/dashboard`);
  expect(response!.status()).toBe(200);
  expect(response!.headers()["content-security-policy"]).toContain("connect-src 'self'");
  await expect.poll(() => page.locator("#connection").textContent()).toContain("Live");
  // Marks this document: if the page reloaded, the mark would be gone.
  await page.evaluate(() => {
    (window as unknown as { unreloaded: boolean }).unreloaded = true;
  });
}

const stillSameDocument = () =>
  page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded);

async function createVault(): Promise<string> {
  const { key } = await issueKey(svc);
  return (await new RestCalls(svc.baseUrl, key).createVault(86_400)).id;
}

describe("GET /dashboard in a browser", () => {
  it("counts a new stamp, draws it and lists its event, without a reload", async () => {
    await openDashboard();
    const before = Number(await count("stamps"));
    expect(await page.locator("#chart rect").count()).toBe(0);

    const stamp = await createStamp(svc, "seen on the dashboard");
    await expect.poll(() => count("stamps")).toBe(String(before + 1));
    const event = page.locator("#events li").first();
    await expect.poll(() => event.textContent()).toContain(stamp.stamp_id);
    expect(await event.locator("a").getAttribute("href")).toBe(`${svc.baseUrl}/verify/${stamp.stamp_id}`);
    expect(await page.locator("#chart rect").count()).toBe(1);
    await expect.poll(() => page.locator("#chart-desc").textContent()).toContain(`${before + 1} in all`);
    expect(await stillSameDocument()).toBe(true);
    await browser.screenshot(page, "dashboard-stamp");
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("recounts vaults by state after a vault event", async () => {
    await openDashboard();
    const active = Number(await count("active"));
    const vaultId = await createVault();
    await expect.poll(() => page.locator("#events li").first().textContent()).toContain(vaultId);
    await expect.poll(() => count("active"), { timeout: 10_000 }).toBe(String(active + 1));
    expect(await stillSameDocument()).toBe(true);
  });

  it("shows the transparency log's latest checkpoint and its size in batches", async () => {
    page = await browser.newPage();
    const checkpoint =
      "stampd.test/log\n3\n037kGJdt2VdTwcc4YrOTj6Kiz5tP8P3+izDNlSCWFLc=\n\n— stampd.test/log abc=\n";
    // The log is another part of the service; here it answers with a checkpoint of three batches.
    await page.route(`${svc.baseUrl}/log`, (route) =>
      route.fulfill({
        json: {
          origin: "stampd.test/log",
          verifier_key: "stampd.test/log+8a1f54c6+AaxgmaeA",
          public_key: `ed25519:${"ab".repeat(32)}`,
          tree_size: 3,
          root_hash: "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
          checkpoint,
        },
      }),
    );
    await page.goto(`${svc.baseUrl}/dashboard`);
    await expect.poll(() => count("batches")).toBe("3");
    expect(await page.locator("#log-details").isVisible()).toBe(true);
    expect(await page.locator('[data-log="checkpoint"]').textContent()).toBe(checkpoint);
    await browser.screenshot(page, "dashboard-checkpoint");
  });
});

describe("the dashboard's stamp total", () => {
  it("counts every stored stamp, made before a restart and in batches, and goes on live", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "stampd-dashboard-"));
    let first: RunningService | undefined = await startPagesService({ DATA_DIR: dataDir });
    let again: RunningService | undefined;
    try {
      await createStamp(first, "before the restart");
      await first.service.stamps.service.createManyFromHash(
        ["one", "two", "three"].map((text) => ({
          contentHash: { algorithm: "sha3-256", hex: sha3(text) },
          accountId: null,
        })),
      );
      await first.close();
      first = undefined;
      again = await startPagesService({ DATA_DIR: dataDir });
      page = await browser.newPage();
      await page.goto(`${again.baseUrl}/dashboard`);
      expect(await count("stamps")).toBe("4");
      await expect.poll(() => page.locator("#connection").textContent()).toContain("Live");
      await createStamp(again, "after the restart");
      await expect.poll(() => count("stamps")).toBe("5");
      const stats = await (await fetch(`${again.baseUrl}/dashboard/stats`)).json();
      expect(stats.stamps.total).toBe(5);
      await browser.screenshot(page, "dashboard-after-restart");
    } finally {
      await first?.close();
      await again?.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
