import { AREAS, type Area, type CheckResult } from "./check.js";
import type { RunReport } from "./run.js";

type Counts = { passed: number; failed: number; not_run: number };

/** Passed, failed and not run per area, and in all. */
export function summarize(results: readonly CheckResult[]): Record<Area | "total", Counts> {
  const zero = (): Counts => ({ passed: 0, failed: 0, not_run: 0 });
  const summary = Object.fromEntries([...AREAS, "total"].map((a) => [a, zero()])) as Record<
    Area | "total",
    Counts
  >;
  for (const r of results) {
    summary[r.area][r.outcome.status]++;
    summary.total[r.outcome.status]++;
  }
  return summary;
}

/** The readable report: one line per area, each failure with its evidence, the not-run reasons. */
export function textReport(report: RunReport): string {
  const summary = summarize(report.results);
  const lines = [
    `stampd conformance ${report.runId} against ${report.target.url}${report.mock ? " (mock)" : ""}${report.write ? " (--write)" : " (read-only)"}`,
    "",
  ];
  for (const area of AREAS) {
    const c = summary[area];
    lines.push(`  ${area.padEnd(11)} ${c.passed} passed, ${c.failed} failed, ${c.not_run} not run`);
  }
  const t = summary.total;
  lines.push(`  ${"total".padEnd(11)} ${t.passed} passed, ${t.failed} failed, ${t.not_run} not run`);
  const failures = report.results.filter((r) => r.outcome.status === "failed");
  if (failures.length) lines.push("", "Failures:");
  for (const r of failures) {
    if (r.outcome.status !== "failed") continue;
    const { request, expected, actual } = r.outcome.failure;
    lines.push(`  ✗ [${r.area}] ${r.name}`);
    if (request) lines.push(`      request:  ${request}`);
    lines.push(`      expected: ${expected}`, `      actual:   ${actual}`);
  }
  const reasons = new Map<string, string[]>();
  for (const r of report.results)
    if (r.outcome.status === "not_run")
      reasons.set(r.outcome.reason, [...(reasons.get(r.outcome.reason) ?? []), r.name]);
  if (reasons.size) lines.push("", "Not run:");
  for (const [reason, names] of reasons) lines.push(`  - ${reason} (${names.length}): ${names.join("; ")}`);
  return lines.join("\n");
}

/** The report as JSON for CI systems: the run, the summary and every result. */
export function jsonReport(report: RunReport): string {
  return `${JSON.stringify({ ...report, summary: summarize(report.results) }, null, 2)}\n`;
}

/** JUnit XML (the Ant/Surefire dialect CI systems read): one testsuite per area. */
export function junitReport(report: RunReport): string {
  const suites = AREAS.map((area) => {
    const results = report.results.filter((r) => r.area === area);
    const c = summarize(results)[area];
    const seconds = results.reduce((s, r) => s + r.ms, 0) / 1000;
    const cases = results.map((r) => {
      const head = `    <testcase classname="stampd.conformance.${area}" name="${xml(r.name)}" time="${(r.ms / 1000).toFixed(3)}"`;
      if (r.outcome.status === "passed") return `${head}/>`;
      if (r.outcome.status === "not_run")
        return `${head}>\n      <skipped message="${xml(r.outcome.reason)}"/>\n    </testcase>`;
      const { request, expected, actual } = r.outcome.failure;
      const detail = [request && `request: ${request}`, `expected: ${expected}`, `actual: ${actual}`]
        .filter(Boolean)
        .join("\n");
      return `${head}>\n      <failure message="${xml(`expected ${expected}`)}">${xml(detail)}</failure>\n    </testcase>`;
    });
    return [
      `  <testsuite name="${area}" tests="${results.length}" failures="${c.failed}" errors="0" skipped="${c.not_run}" time="${seconds.toFixed(3)}" timestamp="${report.startedAt}">`,
      ...cases,
      "  </testsuite>",
    ].join("\n");
  });
  const t = summarize(report.results).total;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="stampd conformance ${xml(report.runId)}" tests="${report.results.length}" failures="${t.failed}" errors="0" skipped="${t.not_run}">`,
    ...suites,
    "</testsuites>",
    "",
  ].join("\n");
}

/** Text for an XML attribute or element; characters XML 1.0 forbids become U+FFFD. */
function xml(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "\uFFFD")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;");
}
