import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { listOperations } from "../../server/contract/openapi.js";
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

  it('/docs "Try it out" on POST /stamps with a file creates a stamp (201), from blank defaults', async () => {
    page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/docs#/stamps/createStamp`);
    const operation = page.locator("#operations-stamps-createStamp");
    await operation.locator(".opblock-summary").first().waitFor();
    if (!(await operation.locator(".try-out__btn").isVisible()))
      await operation.locator(".opblock-summary").click();
    await operation.locator(".try-out__btn").click();
    // Nothing invented is filled in: no idempotency key, no identity, no threshold.
    expect(await operation.locator('tr[data-param-name="Idempotency-Key"] input').inputValue()).toBe("");
    expect(await operation.locator('tr[data-param-name="identity_id"] input').inputValue()).toBe("");
    // The form's optional fields start blank and unsent, but for the one the schema gives a default.
    const form = operation.locator(".opblock-section-request-body");
    const fields = await form.locator("tr[data-property-name]").evaluateAll((rows) =>
      rows.map((row) => {
        const input = row.querySelector("input:not([type=checkbox]):not([type=file]), select");
        const sent = row.querySelector<HTMLInputElement>("input[type=checkbox]")?.checked ?? true;
        return [
          row.getAttribute("data-property-name"),
          (input as HTMLInputElement | null)?.value ?? "",
          sent,
        ];
      }),
    );
    expect(fields).toEqual([
      ["file", "", true],
      ["preset", "", false],
      ["anchors", "", false],
      ["trust_threshold", "", false],
      ["version", "1.0.0", false],
      ["generate_fp", "", false],
      ["identity_id", "", false],
    ]);
    await operation.locator('.opblock-section-request-body input[type="file"]').setInputFiles({
      name: "doc.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("stamped through Swagger UI"),
    });
    const created = page.waitForResponse((res) => new URL(res.url()).pathname === "/stamps");
    await operation.locator(".execute").click();
    const response = await created;
    expect(new URL(response.url()).origin).toBe(svc.baseUrl);
    expect(response.status()).toBe(201);
    const shown = operation.locator(".live-responses-table tbody .response-col_status").first();
    await shown.waitFor();
    expect(await shown.textContent()).toBe("201");
    await browser.screenshot(page, "docs-try-it-out", { fullPage: false });
  }, 60_000);

  it('/docs "Try it out" on multipart POST /verify: the stamp document through the picker Swagger UI draws', async () => {
    const made = await fetch(`${svc.baseUrl}/stamps`, {
      method: "POST",
      body: (() => {
        const form = new FormData();
        form.append("file", new Blob(["verified through Swagger UI"]), "doc.txt");
        return form;
      })(),
    });
    const { stamp_json } = (await made.json()) as { stamp_json: object };
    page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/docs#/verification/verifyStampJson`);
    const operation = page.locator("#operations-verification-verifyStampJson");
    await operation.locator(".opblock-summary").first().waitFor();
    if (!(await operation.locator(".try-out__btn").isVisible()))
      await operation.locator(".opblock-summary").click();
    await operation.locator(".try-out__btn").click();
    await operation.locator(".opblock-section-request-body select").selectOption("multipart/form-data");
    const row = operation.locator('tr[data-property-name="stamp_json"]');
    const document = {
      name: "doc.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("verified through Swagger UI"),
    };
    const stampFile = {
      name: "stamp.json",
      mimeType: "application/json",
      buffer: Buffer.from(JSON.stringify(stamp_json)),
    };
    // Swagger UI draws the form's JSON text field as a file picker (issue #36): the server takes the file.
    await row.locator('input[type="file"]').setInputFiles(stampFile);
    await operation.locator('tr[data-property-name="file"] input[type="file"]').setInputFiles(document);
    const answered = page.waitForResponse((res) => new URL(res.url()).pathname === "/verify");
    await operation.locator(".execute").click();
    const response = await answered;
    expect(response.status()).toBe(200);
    expect(await response.json()).toMatchObject({ is_valid: true, content_hash_valid: true });
  }, 60_000);

  it("/redoc renders every operation with Redoc, asking nothing of another site", async () => {
    page = await browser.newPage();
    const requested: string[] = [];
    page.on("request", (req) => requested.push(req.url()));
    await page.goto(`${svc.baseUrl}/redoc`);
    const sections = page.locator('[data-section-id^="operation/"]');
    await sections.first().waitFor();
    expect(await sections.count()).toBe(operations.length);
    expect(await page.getByRole("heading", { name: "Public verification page" }).count()).toBe(1);
    await browser.screenshot(page, "docs-redoc", { fullPage: false });
    // Every request the page made went to this service (data: and blob: URLs stay in the page).
    const outside = requested.filter(
      (url) => !/^(data|blob):/.test(url) && new URL(url).origin !== svc.baseUrl,
    );
    expect(requested.length).toBeGreaterThan(1);
    expect(outside).toEqual([]);
  }, 60_000);
});
