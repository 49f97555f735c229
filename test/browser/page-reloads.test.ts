import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../helpers/service.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";

// Reloading pages is not spending the API budget: with rate limiting on (anonymous burst 5), the
// dashboard reloaded ten times in Chromium still gets its counts, its log panel and its live
// socket each time, all charged to the page budget (Sec-Fetch-Site: same-origin; the socket: its Origin).

let svc: RunningService;
let browser: Browser;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startPagesService({ RATE_LIMIT_ENABLED: "true" }), openBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

describe("pages reloaded in a browser with rate limiting on", () => {
  it("serves the dashboard and its background requests ten times over, none refused", async () => {
    const page = await browser.newPage();
    const statuses: string[] = [];
    page.on("response", (res) => statuses.push(`${res.status()} ${new URL(res.url()).pathname}`));
    for (let i = 0; i < 10; i++) {
      statuses.length = 0;
      await page.goto(`${svc.baseUrl}/dashboard`);
      await page.getByText("Live: updates as events arrive").waitFor();
      await expect.poll(() => statuses.filter((s) => s.endsWith(" /log")).length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s.startsWith("429"))).toEqual([]);
      expect(statuses).toContain("200 /dashboard/stats");
    }
    // The API budget is untouched: an API call from the same address still finds its burst.
    const api = await fetch(`${svc.baseUrl}/presets`);
    expect(api.headers.get("x-ratelimit-remaining")).toBe("4");
    await page.close();
    expect(browser.blocked).toEqual([]);
  }, 120_000);
});
