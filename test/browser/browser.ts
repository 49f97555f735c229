import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

/**
 * Debian's Chromium (`apt-get install -y chromium`; the test run installs it as root or stops,
 * test/environment/global-setup.ts). Never a downloaded browser.
 */
const CHROMIUM = "/usr/bin/chromium";

// Headless as root in a sandbox-less container, with every background service of Chromium off:
// this machine's network is closed, and the tests must see only the requests the pages make.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const screenshotDir = "test-results/screenshots";

export interface Browser {
  context: BrowserContext;
  /** Every request to a host other than this machine, which the browser was refused. */
  blocked: string[];
  /** Uncaught page errors and console errors (a CSP violation is one), by page. */
  errors: string[];
  /** Messages of every alert, confirm or prompt a page opened (each is dismissed). */
  dialogs: string[];
  newPage(): Promise<Page>;
  /** Saves test-results/screenshots/<name>.png, the whole page unless `fullPage` is false. */
  screenshot(page: Page, name: string, options?: { fullPage?: boolean }): Promise<void>;
  close(): Promise<void>;
}

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);

// Every host but this machine's resolves to nothing (IP addresses included).
const LOCAL_NAMES_ONLY = `--host-resolver-rules=MAP * ~NOTFOUND, ${[...LOCAL_HOSTS].map((h) => `EXCLUDE ${h}`).join(", ")}`;

export interface BrowserOptions {
  /**
   * Lets Chromium send its own CORS preflights: while Playwright routes requests it answers every
   * preflight itself, allowing anything, so a test of a server's CORS needs this. Requests to other
   * hosts then fail by name resolution instead, unrecorded in `blocked`.
   */
  realPreflights?: boolean;
}

/** Chromium with a fresh profile, refusing (and recording) any request that leaves this machine. */
export async function openBrowser(options: BrowserOptions = {}): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), "stampd-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: options.realPreflights ? [...ARGS, LOCAL_NAMES_ONLY] : ARGS,
    viewport: { width: 1100, height: 900 },
  });
  const blocked: string[] = [];
  const errors: string[] = [];
  const dialogs: string[] = [];
  if (!options.realPreflights) {
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (LOCAL_HOSTS.has(url.hostname)) return route.continue();
      blocked.push(url.href);
      return route.abort("blockedbyclient");
    });
  }
  mkdirSync(screenshotDir, { recursive: true });
  return {
    context,
    blocked,
    errors,
    dialogs,
    async newPage() {
      const page = await context.newPage();
      page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
      page.on("dialog", (dialog) => {
        dialogs.push(dialog.message());
        void dialog.dismiss();
      });
      page.on("console", (msg) => {
        if (msg.type() === "error") errors.push(`console: ${msg.text()}`);
      });
      return page;
    },
    async screenshot(page, name, { fullPage = true } = {}) {
      await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage });
    },
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
