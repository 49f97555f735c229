import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listOperations } from "../../server/rest/spec.js";
import type { RunningService } from "../helpers/service.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";

// /docs (Swagger UI) and /redoc render the whole spec in Chromium from this service's own files:
// any request leaving the machine is refused and recorded, and there must be none.

let svc: RunningService;
let browser: Browser;
let page: Page;
const operations = listOperations();

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

describe("the API reference pages in a browser", () => {
  it("/docs renders every operation with Swagger UI", async () => {
    page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/docs`);
    await page.locator(".opblock").first().waitFor();
    expect(await page.locator(".opblock").count()).toBe(operations.length);
    expect(await page.locator(".opblock-summary-path").allTextContents()).toContain("/verify/{stamp_id}");
    await browser.screenshot(page, "docs-swagger", { fullPage: false });
  }, 60_000);

  it("/redoc renders every operation with Redoc, its CDN logo refused by the CSP", async () => {
    page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/redoc`);
    const sections = page.locator('[data-section-id^="operation/"]');
    await sections.first().waitFor();
    expect(await sections.count()).toBe(operations.length);
    expect(await page.getByRole("heading", { name: "Public verification page" }).count()).toBe(1);
    await browser.screenshot(page, "docs-redoc", { fullPage: false });
    // Redoc 2.5 hard-codes a logo from its CDN; the page's CSP stops it before any request.
    expect(browser.errors.splice(0)).toEqual([
      expect.stringMatching(
        /^console: Loading the image 'https:\/\/cdn\.redoc\.ly\/.*violates .*Content Security Policy/,
      ),
    ]);
  }, 60_000);
});
