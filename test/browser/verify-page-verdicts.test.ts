import Database from "better-sqlite3";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AnchorType } from "../../server/stamps/stamp-settings.js";
import type { RunningService } from "../helpers/service.js";
import { createStamp } from "../stamps/helpers.js";
import { type Browser, openBrowser } from "./browser.js";
import { startPagesService } from "./pages-service.js";

// Issue #22, "one verdict everywhere": for each combination of requested anchors and their states
// (confirmed, pending, failed, unavailable), the verification page in Chromium shows a verdict, a
// status line, a timeline and a score that agree. The deployment has a time-stamp authority
// configured but unreachable (rfc3161 stays pending) and no OpenTimestamps calendar or Ethereum
// node (bitcoin and ethereum are unavailable). The proof pipeline runs when the test ticks it; a
// state the deployment cannot reach by itself (an anchor confirmed or failed) is written into its
// anchor records, as a worker of a deployment configured earlier would have left them.

type Outcome = "confirmed" | "failed";
interface Given {
  anchors: AnchorType[];
  /** Whether the pipeline runs (seals, logs, attempts the anchors). */
  sealed: boolean;
  /** Anchor records set afterwards. */
  set?: Partial<Record<AnchorType, Outcome>>;
  threshold?: number;
}
interface Want {
  verdict: string;
  kind: "valid" | "pending" | "warning";
  status: string;
  steps: [string, string, string, string];
  score: string;
}

const cases: [string, Given, Want][] = [
  [
    "no anchors, just made",
    { anchors: [], sealed: false },
    {
      verdict: "Valid, evidence pending",
      kind: "pending",
      status: "Pending (not yet in a signed batch)",
      steps: ["Done", "Waiting", "Waiting", "Not requested"],
      score: "1 of 5 required: not met.",
    },
  ],
  [
    "no anchors, sealed and logged: a default stamp meets the default threshold",
    { anchors: [], sealed: true },
    {
      verdict: "Valid",
      kind: "valid",
      status: "Confirmed (in a signed batch; no anchors were requested)",
      steps: ["Done", "Done", "Done", "Not requested"],
      score: "5 of 5 required: met.",
    },
  ],
  [
    "log confirmed",
    { anchors: ["log"], sealed: true },
    {
      verdict: "Valid",
      kind: "valid",
      status: "Anchored (every requested anchor has confirmed)",
      steps: ["Done", "Done", "Done", "Done"],
      score: "5 of 5 required: met.",
    },
  ],
  [
    "log pending before sealing, bitcoin unavailable",
    { anchors: ["log", "bitcoin"], sealed: false },
    {
      verdict: "Valid, but 1 requested anchor is unavailable here",
      kind: "warning",
      status: "Pending (not yet in a signed batch)",
      steps: ["Done", "Waiting", "Waiting", "Will not complete"],
      score: "1 of 5 required: not met.",
    },
  ],
  [
    "log confirmed, rfc3161 pending",
    { anchors: ["log", "rfc3161"], sealed: true },
    {
      verdict: "Valid, evidence pending",
      kind: "pending",
      status: "Confirmed (in a signed batch; anchors pending)",
      steps: ["Done", "Done", "Done", "Waiting"],
      score: "5 of 5 required: met.",
    },
  ],
  [
    "log confirmed, rfc3161 confirmed",
    { anchors: ["log", "rfc3161"], sealed: true, set: { rfc3161: "confirmed" }, threshold: 8 },
    {
      verdict: "Valid",
      kind: "valid",
      status: "Anchored (every requested anchor has confirmed)",
      steps: ["Done", "Done", "Done", "Done"],
      score: "8 of 8 required: met.",
    },
  ],
  [
    "archival: log confirmed, rfc3161 pending, bitcoin unavailable",
    { anchors: ["log", "rfc3161", "bitcoin"], sealed: true, threshold: 8 },
    {
      verdict: "Valid, but 1 requested anchor is unavailable here",
      kind: "warning",
      status:
        "Confirmed (in a signed batch; not anchored: Bitcoin (OpenTimestamps) failed or unavailable here)",
      steps: ["Done", "Done", "Done", "Will not complete"],
      score: "5 of 8 required: not met.",
    },
  ],
  [
    "maximum: log and rfc3161 confirmed, bitcoin and ethereum unavailable",
    {
      anchors: ["log", "rfc3161", "bitcoin", "ethereum"],
      sealed: true,
      set: { rfc3161: "confirmed" },
      threshold: 12,
    },
    {
      verdict: "Valid, but 2 requested anchors are unavailable here",
      kind: "warning",
      status:
        "Confirmed (in a signed batch; not anchored: Bitcoin (OpenTimestamps), Ethereum failed or unavailable here)",
      steps: ["Done", "Done", "Done", "Will not complete"],
      score: "8 of 12 required: not met.",
    },
  ],
  [
    "bitcoin confirmed (recorded when a calendar was configured), ethereum unavailable",
    { anchors: ["bitcoin", "ethereum"], sealed: true, set: { bitcoin: "confirmed" } },
    {
      verdict: "Valid, but 1 requested anchor is unavailable here",
      kind: "warning",
      status: "Confirmed (in a signed batch; not anchored: Ethereum failed or unavailable here)",
      steps: ["Done", "Done", "Done", "Will not complete"],
      score: "8 of 5 required: met.",
    },
  ],
  [
    "log confirmed, rfc3161 failed",
    { anchors: ["log", "rfc3161"], sealed: true, set: { rfc3161: "failed" } },
    {
      verdict: "Signed, but an anchor failed",
      kind: "warning",
      status:
        "Confirmed (in a signed batch; not anchored: RFC 3161 time-stamp authority failed or unavailable here)",
      steps: ["Done", "Done", "Done", "Will not complete"],
      score: "5 of 5 required: met.",
    },
  ],
  [
    "all of them: log confirmed, rfc3161 pending, bitcoin confirmed, ethereum unavailable, below threshold",
    {
      anchors: ["log", "rfc3161", "bitcoin", "ethereum"],
      sealed: true,
      set: { bitcoin: "confirmed" },
      threshold: 12,
    },
    {
      verdict: "Valid, but 1 requested anchor is unavailable here",
      kind: "warning",
      status: "Confirmed (in a signed batch; not anchored: Ethereum failed or unavailable here)",
      steps: ["Done", "Done", "Done", "Will not complete"],
      score: "8 of 12 required: not met.",
    },
  ],
];

let svc: RunningService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [svc, browser] = await Promise.all([
    // Port 9 (discard) refuses connections here: every TSA attempt fails and is retried later.
    startPagesService({ TSA_URL: "http://127.0.0.1:9/tsr" }),
    openBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});
afterEach(async () => {
  await page?.close();
  expect(browser.errors.splice(0)).toEqual([]);
});

/** Writes an anchor's outcome into the records of the stamp's batch. */
function setAnchor(stampId: string, type: AnchorType, outcome: Outcome): void {
  const db = new Database(`${svc.dataDir}/stampd.db`);
  try {
    const { batch_id } = db.prepare("SELECT batch_id FROM stamp_proofs WHERE stamp_id = ?").get(stampId) as {
      batch_id: string;
    };
    const confirmed = outcome === "confirmed";
    db.prepare(
      "UPDATE batch_anchors SET status = ?, reference = ?, confirmed_at = ?, reason = ? WHERE batch_id = ? AND type = ?",
    ).run(
      outcome,
      confirmed ? "a1".repeat(16) : null,
      confirmed ? "2026-01-02T03:04:05.000Z" : null,
      confirmed ? null : "the time-stamp authority refused the request",
      batch_id,
      type,
    );
  } finally {
    db.close();
  }
}

const text = async (selector: string) => ((await page.locator(selector).first().textContent()) ?? "").trim();

describe("the verification page's verdict, status, timeline and score agree", () => {
  it.each(cases)("%s", async (_name, given, want) => {
    const fields: Record<string, string> = { anchors: given.anchors.join(",") };
    if (given.anchors.length === 0) delete fields.anchors;
    if (given.threshold !== undefined) fields.trust_threshold = String(given.threshold);
    const stamp = await createStamp(svc, `combination ${_name}`, fields);
    if (given.sealed) await svc.service.proofs.pipeline.tick();
    for (const [type, outcome] of Object.entries(given.set ?? {}))
      setAnchor(stamp.stamp_id, type as AnchorType, outcome);

    page = await browser.newPage();
    await page.goto(`${svc.baseUrl}/verify/${stamp.stamp_id}`);
    const verdict = await text("#verdict-title");
    const status = await text(".details div:nth-child(2) dd");
    const steps = await page.locator(".timeline .step-state").allTextContents();
    const score = await text(".trust");
    expect({ verdict, status, steps, score }).toEqual({
      verdict: `${{ valid: "✓", pending: "…", warning: "!" }[want.kind]} ${want.verdict}`,
      status: want.status,
      steps: want.steps,
      score: want.score,
    });
    expect(await page.locator(".verdict").getAttribute("class")).toContain(`verdict-${want.kind}`);

    // The same facts through the API: the page shows what REST says.
    const rest = await (await fetch(`${svc.baseUrl}/stamps/${stamp.stamp_id}`)).json();
    expect(score.startsWith(`${rest.trust_score} of ${rest.trust_threshold}`)).toBe(true);
    expect(status.toLowerCase().startsWith(rest.status)).toBe(true);
    // Invariants that hold for every combination.
    expect(steps[3] === "Done").toBe(rest.status === "anchored");
    if (want.kind === "valid") expect(rest.trust_met).toBe(true);
    // The score's lines sum to it, beside the rule.
    const earned = await page.locator(".trust-items li.earned").allTextContents();
    const sum = earned.map((line) => Number(line.match(/\+(\d+)$/)![1])).reduce((a, b) => a + b, 0);
    expect(sum).toBe(rest.trust_score);
    expect(await text("#trust-title ~ .note")).toContain("Only evidence earns points");
    const unavailable = rest.anchors.filter((a: { status: string }) => a.status === "unavailable").length;
    expect(await page.locator("table.anchors tr.anchor-unavailable").count()).toBe(unavailable);
  });
});
