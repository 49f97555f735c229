import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runStampd } from "../cli/run-stampd.js";
import type { RunningService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { accessibilityViolations } from "./accessibility.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";
import { digests, stampOverWs, tamperWithStoredHash } from "./stamps.js";

// The public verification page in Chromium, against a real service: verdicts, the in-browser
// file check for each hash algorithm, the 404 page, stamp text that tries to inject script, and
// (on a service that seals batches every 50 ms) confirmed anchors and the RFC 3161 token.

let svc: RunningService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  // Batches are sealed only hourly here, so every stamp stays pending while a test looks at it.
  [svc, browser] = await Promise.all([startPagesService({ BATCH_INTERVAL_MS: "3600000" }), openBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});
afterEach(async () => {
  await page?.close();
  // Everything a page loads comes from this service, and nothing fails on the console (CSP included).
  expect(browser.blocked.splice(0)).toEqual([]);
  expect(browser.errors.splice(0)).toEqual([]);
  expect(browser.dialogs.splice(0)).toEqual([]);
});

const open = async (stampId: string) => {
  page = await browser.newPage();
  const response = await page.goto(`${svc.baseUrl}/verify/${encodeURIComponent(stampId)}`);
  return response!;
};
const chooseFile = (name: string, content: string) =>
  page.setInputFiles("#file-input", {
    name,
    mimeType: "application/octet-stream",
    buffer: Buffer.from(content),
  });
const fileResult = () => page.locator("#file-result");

describe("GET /verify/{stamp_id} in a browser", () => {
  it("shows a REST stamp's status, hash and anchors, and checks files against it in the browser", async () => {
    const stamp = await createStamp(svc, "the signed contract", { preset: "standard" });
    const response = await open(stamp.stamp_id);
    expect(response.status()).toBe(200);
    expect(response.headers()["content-security-policy"]).toContain("script-src 'self'");
    await expect(page.title()).resolves.toBe(`Stamp ${stamp.stamp_id} - stampd`);
    // Not sealed yet, and this deployment has no TSA: the rfc3161 anchor is unavailable, not pending.
    await expect(page.locator("#verdict-title").textContent()).resolves.toContain(
      "Valid, but 1 requested anchor is unavailable here",
    );
    const details = page.locator(".details");
    await expect(details.textContent()).resolves.toContain(stamp.document_hash);
    await expect(details.textContent()).resolves.toContain("SHA3-256");
    expect(await page.locator("table.anchors tbody tr").count()).toBe(2);
    // Only the service signature is evidence yet (pending and unavailable anchors add nothing).
    await expect(page.locator(".trust").textContent()).resolves.toMatch(/1 of 5 required: not met/);

    // The keyboard path: a labelled file input.
    await expect(page.getByLabel("Choose a file").count()).resolves.toBe(1);
    await chooseFile("contract.txt", "the signed contract");
    await expect.poll(() => fileResult().textContent()).toContain("contract.txt matches this stamp");
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await fileResult().getAttribute("class")).toContain("match");
    await browser.screenshot(page, "verify-match");

    await chooseFile("other.txt", "another contract");
    await expect.poll(() => fileResult().textContent()).toContain("other.txt does not match this stamp");
    await expect.poll(() => fileResult().textContent()).toContain(digests["sha3-256"]("another contract"));
    await browser.screenshot(page, "verify-mismatch");
  });

  it.each(["sha256", "blake3"] as const)("checks a file against a %s stamp", async (algorithm) => {
    const content = `document hashed with ${algorithm}`;
    const id = await stampOverWs(svc, `${algorithm}:${digests[algorithm](content)}`);
    await open(id);
    await expect(page.locator(".details").textContent()).resolves.toContain(
      "Not recorded (stamped from a hash)",
    );
    await chooseFile("doc.bin", content);
    await expect.poll(() => fileResult().textContent()).toContain("doc.bin matches this stamp");
    await chooseFile("doc.bin", `${content}!`);
    await expect.poll(() => fileResult().textContent()).toContain("doc.bin does not match this stamp");
  });

  it("hashes a large file chunk by chunk", async () => {
    const content = "0123456789abcdef".repeat(512 * 1024); // 8 MiB: many stream chunks
    const stamp = await createStamp(svc, content);
    await open(stamp.stamp_id);
    await chooseFile("large.bin", content);
    await expect.poll(() => fileResult().textContent(), { timeout: 20_000 }).toContain("large.bin matches");
  });

  it("takes a file dropped on the drop zone", async () => {
    const stamp = await createStamp(svc, "dropped document");
    await open(stamp.stamp_id);
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(["dropped document"], "dropped.txt"));
      document.getElementById("dropzone")!.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer }));
    });
    await expect.poll(() => fileResult().textContent()).toContain("dropped.txt matches this stamp");
  });

  it("says a tampered stamp is not valid, in words and with the failed check", async () => {
    const stamp = await createStamp(svc, "tampered later");
    tamperWithStoredHash(svc, stamp.stamp_id);
    await open(stamp.stamp_id);
    await expect(page.locator("#verdict-title").textContent()).resolves.toContain("Not valid");
    expect(await page.locator(".verdict").getAttribute("class")).toContain("verdict-invalid");
    expect(await page.locator(".failures").textContent()).toMatch(/signature/i);
    await browser.screenshot(page, "verify-tampered");
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("answers an unknown or malformed id with the 404 page", async () => {
    const ids = ["stp_00000000000000000000000000", "not-a-stamp", "x".repeat(300), "<b>not-a-stamp</b>"];
    for (const id of ids) {
      const response = await open(id);
      expect(response.status()).toBe(404);
      await expect(page.locator("h1").textContent()).resolves.toBe("Stamp not found");
      await expect(page.locator(".verdict code").textContent()).resolves.toBe(id);
    }
    await browser.screenshot(page, "verify-not-found");
    // Chromium logs each 404 document once; nothing else may fail (the page's assets load).
    expect(browser.errors.splice(0)).toEqual(ids.map(() => expect.stringMatching(/status of 404/)));
  });

  it("renders script in stamp text inert, shown literally", async () => {
    const version = `"><script>alert("version")</script>`;
    const key = `<img src=x onerror=alert("key")>`;
    const value = `<script>alert("value")</script><svg onload=alert("svg")>`;
    const rest = await createStamp(svc, "hostile version", { version });
    const ws = await stampOverWs(svc, `sha256:${digests.sha256("hostile metadata")}`, { [key]: value });
    for (const id of [rest.stamp_id, ws]) {
      await open(id);
      await page.waitForLoadState("load");
      expect(browser.dialogs).toEqual([]);
      // Only the page's own module script; no element the stamp's text would have made.
      await expect(page.locator("script").count()).resolves.toBe(1);
      await expect(page.locator("main img, main svg").count()).resolves.toBe(0);
    }
    await expect(page.locator(".metadata dt").textContent()).resolves.toBe(key);
    await expect(page.locator(".metadata dd").textContent()).resolves.toBe(value);
    await browser.screenshot(page, "verify-injection");
    await page.close();
    await open(rest.stamp_id);
    await expect(page.getByText(version, { exact: true }).count()).resolves.toBe(1);
  });

  it("prints the record without the interactive parts", async () => {
    const stamp = await createStamp(svc, "printed", { preset: "casual" });
    await open(stamp.stamp_id);
    await page.emulateMedia({ media: "print" });
    await expect(page.locator("#file-check").isVisible()).resolves.toBe(false);
    await expect(page.locator(".site-header nav").isVisible()).resolves.toBe(false);
    await expect(page.locator(".details").isVisible()).resolves.toBe(true);
    await browser.screenshot(page, "verify-print");
  });
});

describe("GET /verify/{stamp_id} of a stamp that has been anchored", () => {
  let fast: RunningService;
  beforeAll(async () => {
    fast = await startPagesService({ BATCH_INTERVAL_MS: "50" });
  });
  afterAll(() => fast?.close());

  it("shows the confirmed log anchor with its reference, and links the time-stamp token", async () => {
    const stamp = await createStamp(fast, "anchored document", { anchors: "log", trust_threshold: "4" });
    const current = () => fetch(`${fast.baseUrl}/stamps/${stamp.stamp_id}`).then((r) => r.json());
    await expect.poll(async () => (await current()).status, { timeout: 10_000 }).toBe("anchored");
    page = await browser.newPage();
    await page.goto(`${fast.baseUrl}/verify/${stamp.stamp_id}`);
    expect(await page.locator("#verdict-title").textContent()).toContain("Valid");
    expect(await page.locator(".verdict").getAttribute("class")).toContain("verdict-valid");
    const row = page.locator("table.anchors tbody tr");
    expect(await row.locator("td").nth(1).textContent()).toBe("Confirmed");
    expect(await row.locator("td code").textContent()).toBe((await current()).anchors[0].reference);
    // Stamped, confirmed, logged, anchored.
    expect(await page.locator(".step-done").count()).toBe(4);
    const token = page.getByRole("link", { name: "RFC 3161 time-stamp token" });
    const href = await token.getAttribute("href");
    expect(href).toBe(`${fast.baseUrl}/stamps/${stamp.stamp_id}/timestamp.tsr`);
    const download = await fetch(href!);
    expect([download.status, download.headers.get("content-type")]).toEqual([
      200,
      "application/timestamp-reply",
    ]);
    await browser.screenshot(page, "verify-anchored");
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("downloads the proof bundle, which stampd verify checks offline to the score the page shows", async () => {
    const stamp = await createStamp(fast, "a bundle from the page", { anchors: "log", trust_threshold: "4" });
    const current = () => fetch(`${fast.baseUrl}/stamps/${stamp.stamp_id}`).then((r) => r.json());
    await expect.poll(async () => (await current()).status, { timeout: 10_000 }).toBe("anchored");
    page = await browser.newPage();
    await page.goto(`${fast.baseUrl}/verify/${stamp.stamp_id}`);
    const command = await page.locator('[data-copy="command"]').textContent();
    expect(command).toContain(`stampd verify ${stamp.stamp_id}.stampd.json your-document --trust`);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Proof bundle" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${stamp.stamp_id}.stampd.json`);
    await expect
      .poll(() => page.locator("#proof-bundle-status").textContent(), { timeout: 10_000 })
      .toBe(`Saved ${stamp.stamp_id}.stampd.json.`);
    const dir = mkdtempSync(join(tmpdir(), "stampd-page-bundle-"));
    try {
      const file = join(dir, `${stamp.stamp_id}.stampd.json`);
      await download.saveAs(file);
      const documentFile = join(dir, "document");
      writeFileSync(documentFile, "a bundle from the page");
      // The page's own command, with the file and the document in place.
      const args = command!.replace("stampd verify ", "").replace(`${stamp.stamp_id}.stampd.json`, file);
      const run = await runStampd(["verify", ...args.replace("your-document", documentFile).split(" ")]);
      expect(run.code, `${run.out}\n${run.err}`).toBe(0);
      expect(run.out).toMatch(/trust score\s+\d+ of 4 required \(met\)/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
