import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { RestCalls } from "../helpers/rest-calls.js";
import type { RunningService } from "../helpers/service.js";
import { createIdentity, createStamp } from "../stamps/helpers.js";
import { accessibilityViolations } from "./accessibility.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";
import { digests, stampOverWs } from "./stamps.js";

// Every page at phone widths in Chromium, against a real service whose stamps get sealed and
// anchored (batches every 50 ms), so the pages hold what makes them wide: anchor tables with
// references, author and service keys, the log's checkpoint, vault ids, a long unknown id.

const WIDTHS = [390, 320] as const;

let svc: RunningService;
let browser: Browser;
let page: Page;
const paths: Record<string, string> = {};
let anchoredHash = "";

beforeAll(async () => {
  [svc, browser] = await Promise.all([startPagesService({ BATCH_INTERVAL_MS: "50" }), openBrowser()]);
  const { key } = await issueKey(svc);
  const identity = await createIdentity(svc, key);
  const anchored = await createStamp(svc, "anchored on a phone", { anchors: "log", trust_threshold: "4" });
  anchoredHash = anchored.document_hash;
  const signed = await createStamp(svc, "signed on a phone", { identity_id: identity }, { key });
  const metadata = await stampOverWs(svc, `sha256:${digests.sha256("metadata on a phone")}`, {
    "a-long-metadata-key-without-any-space-in-it":
      "https://example.com/a/long/address/without/spaces/".repeat(3),
  });
  const status = (id: string) =>
    fetch(`${svc.baseUrl}/stamps/${id}`).then(async (r) => (await r.json()).status);
  await vi.waitFor(async () => expect(await status(anchored.stamp_id)).toBe("anchored"), { timeout: 10_000 });
  // A vault, so that the explorer page has a row to lay out.
  await new RestCalls(svc.baseUrl, key).createVault(86_400);
  Object.assign(paths, {
    landing: "/",
    "verify-anchored": `/verify/${anchored.stamp_id}`,
    "verify-signed": `/verify/${signed.stamp_id}`,
    "verify-metadata": `/verify/${metadata}`,
    dashboard: "/dashboard",
    explorer: "/explorer",
    "not-found": `/verify/${"x".repeat(300)}`,
  });
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});
afterEach(async () => {
  await page?.close();
  expect(browser.blocked.splice(0)).toEqual([]);
  // Chromium logs the 404 document of the not-found page; nothing else may fail.
  expect(browser.errors.splice(0).filter((e) => !/status of 404/.test(e))).toEqual([]);
});

async function open(path: string, width: number): Promise<void> {
  page = await browser.newPage();
  await page.setViewportSize({ width, height: 800 });
  await page.goto(`${svc.baseUrl}${path}`);
  await page.waitForLoadState("load");
}

/** What sticks out sideways: the document's overflow, and each element past the right edge. */
const overflow = () =>
  page.evaluate(() => {
    const root = document.documentElement;
    const wide = Array.from(document.body.querySelectorAll("*"))
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}`);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
  });

describe.each(WIDTHS)("pages at %i px wide", (width) => {
  it.each([
    "landing",
    "verify-anchored",
    "verify-signed",
    "verify-metadata",
    "dashboard",
    "explorer",
    "not-found",
  ])("%s has no horizontal scrolling", async (name) => {
    await open(paths[name]!, width);
    if (name === "dashboard") await expect.poll(() => page.locator("#chart rect").count()).toBeGreaterThan(0);
    if (name.startsWith("verify-")) await page.locator(".copy").first().waitFor();
    const { scrollWidth, clientWidth, wide } = await overflow();
    expect(wide).toEqual([]);
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth);
    await browser.screenshot(page, `mobile-${width}-${name}`);
    if (width === 390) expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("stacks the anchors table and breaks hashes in at most two lines", async () => {
    await open(paths["verify-anchored"]!, width);
    const cell = page.locator("table.anchors td").first();
    expect(await cell.evaluate((td) => getComputedStyle(td).display)).toBe("block");
    expect(await cell.evaluate((td) => getComputedStyle(td, "::before").content)).toBe('"Requested: "');
    const hash = page.locator(`code[data-copy="document hash"]`);
    expect(await hash.textContent()).toBe(anchoredHash);
    expect(await hash.evaluate((code) => code.getClientRects().length)).toBeLessThanOrEqual(2);
  });

  it("draws the dashboard chart's labels at 11 px or more", async () => {
    await open(paths.dashboard!, width);
    await expect.poll(() => page.locator("#chart text").count()).toBe(4);
    const sizes = await page.locator("#chart text").evaluateAll((texts) =>
      texts.map((text) => {
        const scale = (text as SVGTextElement).getScreenCTM()!.a;
        return Number.parseFloat(getComputedStyle(text).fontSize) * scale;
      }),
    );
    for (const size of sizes) expect(size).toBeGreaterThanOrEqual(11);
  });
});

describe("the Copy buttons", () => {
  it("copy a hash exactly as the stamp records it", async () => {
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: svc.baseUrl });
    await open(paths["verify-anchored"]!, 390);
    expect(await page.getByRole("button", { name: "Copy document hash" }).count()).toBe(1);
    const button = page.locator('code[data-copy="document hash"] + button.copy');
    await button.click();
    await expect.poll(() => button.textContent()).toBe("Copied document hash");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(anchoredHash);
    expect(await page.locator("#copy-status").textContent()).toBe("document hash copied");
  });
});
