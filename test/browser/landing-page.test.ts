import { createHash } from "node:crypto";
import { createReadStream, mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page, Request } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import type { RunningService } from "../helpers/service.js";
import { accessibilityViolations } from "./accessibility.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";

// The landing page's drop zone in Chromium, against a real service: a file is hashed in the
// browser (never uploaded), "Stamp it" sends only its hash and links the new stamp's page, "Find
// its stamps" lists the stamps of that hash with their verdicts; at desktop and phone widths,
// with a file of several hundred MiB, and under the anonymous rate limit.

let svc: RunningService;
let browser: Browser;
let page: Page;
let dir: string;
/** Every request the pages made, with the size of its body. */
let requests: { url: string; bytes: number }[] = [];

beforeAll(async () => {
  // Batches are sealed only hourly here, so every stamp stays pending while a test looks at it.
  [svc, browser] = await Promise.all([startPagesService({ BATCH_INTERVAL_MS: "3600000" }), openBrowser()]);
  dir = mkdtempSync(join(tmpdir(), "stampd-landing-"));
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await page?.close();
  expect(browser.blocked.splice(0)).toEqual([]);
  expect(browser.errors.splice(0)).toEqual([]);
  // Only hashes travel: no request carries a body of more than a few hundred bytes.
  expect(requests.filter((r) => r.bytes > 4096)).toEqual([]);
});

async function open(service: RunningService, width: number): Promise<void> {
  requests = [];
  page = await browser.newPage();
  page.on("request", (r: Request) => requests.push({ url: r.url(), bytes: r.postDataBuffer()?.length ?? 0 }));
  await page.setViewportSize({ width, height: 900 });
  await page.goto(`${service.baseUrl}/`);
  await page.waitForLoadState("load");
}

const status = () => page.locator("#file-status").textContent();
const answer = () => page.locator("#file-answer").textContent();
const shownHash = () => page.locator("#file-hash").textContent();

async function hashOf(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** What sticks out sideways at this width (as in mobile.test.ts). */
const overflow = () =>
  page.evaluate(() => {
    const root = document.documentElement;
    const wide = Array.from(document.body.querySelectorAll("*"))
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5)
      .map((el) => `${el.tagName.toLowerCase()}#${el.id}.${el.className}`);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
  });

describe.each([1280, 390])("the landing page at %i px", (width) => {
  it("hashes a chosen file here, stamps only its hash, links the stamp and finds it with its verdict", async () => {
    const content = `a contract signed at ${width} px, ${Date.now()}`;
    const path = join(dir, `contract-${width}.txt`);
    writeFileSync(path, content);
    const digest = await hashOf(path);
    await open(svc, width);
    await expect(page.getByRole("button", { name: "Stamp it" }).isDisabled()).resolves.toBe(true);

    // The keyboard's way in: the drop zone holds a labelled file input.
    await page.getByLabel("Choose a file").setInputFiles(path);
    await expect.poll(shownHash).toBe(digest);
    await expect.poll(status).toContain(`Hashed contract-${width}.txt`);
    expect(requests.filter((r) => r.bytes > 0)).toEqual([]);

    await page.getByRole("button", { name: "Stamp it" }).click();
    const link = page.locator("#file-answer a");
    await expect.poll(() => link.count()).toBe(1);
    const stampId = (await link.textContent())!;
    expect(stampId).toMatch(/^stp_/);
    const stamp = await fetch(`${svc.baseUrl}/stamps/${stampId}`).then((r) => r.json());
    expect(stamp).toMatchObject({ hash_algorithm: "sha256", document_hash: digest });
    // Only the hash was sent, as JSON.
    const posted = requests.filter((r) => r.bytes > 0);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.bytes).toBeLessThan(200);

    expect(await overflow()).toEqual({ scrollWidth: width, clientWidth: width, wide: [] });
    expect(await accessibilityViolations(page)).toEqual([]);
    await browser.screenshot(page, `landing-${width}-stamped`);

    await page.getByRole("button", { name: "Find its stamps" }).click();
    const found = page.locator(".found-stamps li");
    await expect.poll(() => found.count()).toBe(1);
    await expect.poll(() => found.first().textContent()).toContain("Valid, evidence pending");
    expect(await found.first().locator("a").getAttribute("href")).toBe(`${svc.baseUrl}/verify/${stampId}`);
    expect(await overflow()).toEqual({ scrollWidth: width, clientWidth: width, wide: [] });
    expect(await accessibilityViolations(page)).toEqual([]);
    await browser.screenshot(page, `landing-${width}-found`);

    // An upload of the same file (stamped SHA3-256) is found by this SHA-256 too, newest first.
    const form = new FormData();
    form.append("file", new Blob([content]), "contract.txt");
    const uploaded = await fetch(`${svc.baseUrl}/stamps`, { method: "POST", body: form }).then((r) =>
      r.json(),
    );
    expect(uploaded.hash_algorithm).toBe("sha3-256");
    await page.getByRole("button", { name: "Find its stamps" }).click();
    await expect.poll(() => found.count()).toBe(2);
    expect(await found.first().locator("a").textContent()).toBe(uploaded.stamp_id);

    // The link leads to the stamp's verification page.
    await page.getByRole("link", { name: stampId, exact: true }).click();
    await page.waitForURL(`${svc.baseUrl}/verify/${stampId}`);
    await expect(page.locator("h1").textContent()).resolves.toBe(`Stamp ${stampId}`);
  });
});

describe("the landing page with a large file", () => {
  let path: string;
  beforeAll(() => {
    path = join(dir, "large.bin");
    writeFileSync(path, "");
    truncateSync(path, 300 * 1024 * 1024); // sparse: made at once
    writeFileSync(path, "not only zeros", { flag: "r+" });
  });

  it("hashes 300 MiB with progress shown, the page answering meanwhile, nothing uploaded", async () => {
    const digest = await hashOf(path);
    await open(svc, 1280);
    await page.getByLabel("Choose a file").setInputFiles(path);

    // Each evaluate is answered by the page while it hashes: the tab is not blocked.
    const seen: number[] = [];
    for (;;) {
      const { value, visible, hashed } = await page.evaluate(() => ({
        value: (document.getElementById("hash-progress") as HTMLProgressElement).value,
        visible: !document.getElementById("hash-progress-row")!.hidden,
        hashed: document.getElementById("file-status")!.textContent!.startsWith("Hashed"),
      }));
      if (hashed) break;
      if (visible) seen.push(value);
    }
    const during = seen.filter((v) => v > 0 && v < 1);
    expect(new Set(during).size).toBeGreaterThan(1);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    await expect(shownHash()).resolves.toBe(digest);
    await expect(status()).resolves.toContain("Hashed large.bin (300.0 MiB)");
    await expect(page.locator("#hash-progress-row").isHidden()).resolves.toBe(true);
    expect(requests.filter((r) => r.bytes > 0)).toEqual([]);
  }, 300_000);

  it("drops the large file's hashing for a file dropped meanwhile", async () => {
    await open(svc, 390);
    await page.getByLabel("Choose a file").setInputFiles(path);
    const progress = () => page.locator("#hash-progress").evaluate((p) => (p as HTMLProgressElement).value);
    await expect.poll(progress).toBeGreaterThan(0);
    await page.evaluate(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(["dropped instead"], "dropped.txt"));
      document.getElementById("dropzone")!.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer }));
    });
    await expect.poll(shownHash).toBe(createHash("sha256").update("dropped instead").digest("hex"));
    await expect(status()).resolves.toBe("Hashed dropped.txt (15 bytes) in this browser.");
    // The large file's hashing stopped at its next slice: it moves the progress no more and never
    // overwrites the answer (a second is many slices had it gone on).
    await page.waitForFunction(() => document.getElementById("hash-progress-row")!.hidden);
    const stopped = await progress();
    await page.waitForTimeout(1000);
    expect(await progress()).toBe(stopped);
    await expect(status()).resolves.toBe("Hashed dropped.txt (15 bytes) in this browser.");
  }, 120_000);
});

describe("the landing page under the rate limit", () => {
  let limited: RunningService;
  beforeAll(async () => {
    limited = await startPagesService({ RATE_LIMIT_ENABLED: "true", BATCH_INTERVAL_MS: "3600000" });
  });
  afterAll(() => limited?.close());

  it("says when to try again, and stamps with a key pasted into the page", async () => {
    const path = join(dir, "limited.txt");
    writeFileSync(path, `rate limited ${Date.now()}`);
    await open(limited, 390);
    await page.getByLabel("Choose a file").setInputFiles(path);
    await expect.poll(shownHash).toBe(await hashOf(path));
    // An anonymous client's burst is 5 and POST /stamps costs 2: the third stamp or one soon after
    // (the bucket refills a token every 3 s) is refused.
    const stampButton = page.getByRole("button", { name: "Stamp it" });
    let refused = 0;
    for (let i = 0; i < 10 && refused === 0; i++) {
      const answered = page.waitForResponse((r) => r.request().method() === "POST");
      await stampButton.click();
      refused = (await answered).status() === 429 ? i + 1 : 0;
    }
    expect(refused).toBeGreaterThanOrEqual(3);
    await expect
      .poll(answer)
      .toMatch(
        /^Too many requests for now \(anonymous tier\): try again in \d+ s; an API key raises the limit\.$/,
      );
    // Chromium logs the refused request; nothing else failed.
    expect(browser.errors.splice(0)).toEqual([expect.stringMatching(/status of 429/)]);

    await page.getByLabel("API key (optional)").fill("svc_test_not-a-key");
    await stampButton.click();
    await expect.poll(answer).toMatch(/^The API key was refused: /);
    expect(browser.errors.splice(0)).toEqual([expect.stringMatching(/status of 401/)]);

    const { key } = await issueKey(limited);
    await page.getByLabel("API key (optional)").fill(key);
    await stampButton.click();
    await expect.poll(answer).toMatch(/^Stamped at .* Its page, to keep or share: stp_/);
    // The key went in a header only: never in an address, never kept by the page.
    expect(requests.filter((r) => r.url.includes(key))).toEqual([]);
    const kept = await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie]);
    expect(kept).toEqual([0, 0, ""]);
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});
