import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { RestCalls } from "../helpers/rest-calls.js";
import type { RunningService } from "../helpers/service.js";
import { accessibilityViolations } from "./accessibility.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";

// The explorer page in Chromium against a real service: the list with its state filter and
// paging links, and live updates through the real WebSocket when a vault is created or burned.

let svc: RunningService;
let browser: Browser;
let page: Page;
let key: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startPagesService(), openBrowser()]);
  key = (await issueKey(svc)).key;
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

async function createVault(): Promise<string> {
  return (await new RestCalls(svc.baseUrl, key).createVault(86_400)).id;
}

async function burn(vaultId: string): Promise<void> {
  const res = await fetch(`${svc.baseUrl}/vault/${vaultId}/burn`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ reason: "test" }),
  });
  expect(res.status).toBe(200);
}

const listed = () =>
  page.locator("#vault-rows tr").evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.vault));
const stat = (name: string) => page.locator(`[data-stat="${name}"]`).textContent();

async function open(path: string): Promise<void> {
  page = await browser.newPage();
  const response = await page.goto(`${svc.baseUrl}${path}`);
  expect(response!.status()).toBe(200);
  await expect.poll(() => page.locator("#connection").textContent()).toContain("Live");
  await page.evaluate(() => {
    (window as unknown as { unreloaded: boolean }).unreloaded = true;
  });
}

const stillSameDocument = () =>
  page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded);

describe("GET /explorer in a browser", () => {
  const created: string[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 5; i++) created.unshift(await createVault());
    await burn(created[1]!);
  });

  it("lists the vaults newest first, filters by state and pages through them", async () => {
    await open("/explorer?limit=2");
    expect(await listed()).toEqual(created.slice(0, 2));
    expect(await page.locator("#vaults-caption").textContent()).toBe("Vaults 1–2 of 5, newest first");
    expect(await stat("total_vaults")).toBe("5");
    expect(await stat("total_burns")).toBe("1");
    expect(await accessibilityViolations(page)).toEqual([]);
    await browser.screenshot(page, "explorer");

    await page.getByRole("link", { name: "Older →" }).click();
    await page.waitForURL(/offset=2/);
    expect(await listed()).toEqual(created.slice(2, 4));

    await page.getByRole("link", { name: "Burned", exact: true }).click();
    await page.waitForURL(/state=burned/);
    expect(await listed()).toEqual([created[1]]);
    expect(await page.locator("#vault-rows").textContent()).toContain("Burned");
    expect(await page.getByRole("link", { name: "Burned", exact: true }).getAttribute("aria-current")).toBe(
      "page",
    );

    await page.getByRole("link", { name: "Active", exact: true }).click();
    await page.waitForURL(/state=active/);
    expect(await listed()).toEqual(created.filter((id) => id !== created[1]));
  });

  it("shows a new vault and a burn without a reload, through /ws", async () => {
    await open("/explorer?limit=3");
    const before = await listed();
    const vaultId = await createVault();
    await expect.poll(listed).toEqual([vaultId, ...before.slice(0, 2)]);
    expect(await page.locator(`tr[data-vault="${vaultId}"]`).getAttribute("class")).toBe("fresh");
    await expect.poll(() => stat("total_vaults")).toBe("6");
    expect(await page.locator("#vaults-caption").textContent()).toBe("Vaults 1–3 of 6, newest first");

    await burn(vaultId);
    await expect.poll(() => page.locator(`tr[data-vault="${vaultId}"] .state`).textContent()).toBe("Burned");
    await expect.poll(() => stat("total_burns")).toBe("2");
    expect(await stillSameDocument()).toBe(true);
    await browser.screenshot(page, "explorer-live");
  });

  it("keeps a filtered page to its filter when other vaults change", async () => {
    await open("/explorer?state=burned");
    const before = await listed();
    const vaultId = await createVault();
    await expect.poll(() => stat("total_vaults")).toBe("7");
    expect(await listed()).toEqual(before);
    await burn(vaultId);
    await expect.poll(listed).toEqual([vaultId, ...before]);
    expect(await stillSameDocument()).toBe(true);
  });
});
