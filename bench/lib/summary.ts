import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Row, targetRow, verdict } from "./report.js";
import { readResult } from "./results.js";

const README = fileURLToPath(new URL("../README.md", import.meta.url));
const START = "<!-- bench:table:start -->";
const END = "<!-- bench:table:end -->";

/** Every target of the named benchmarks' latest results, one row each, for the console. */
export function summaryRows(names: readonly string[]): Row[] {
  return names.flatMap((name) => {
    const result = readResult(name);
    if (!result) return [{ benchmark: name, what: "(no result)" }];
    return result.targets.map((t) => ({ benchmark: name, ...targetRow(t) }));
  });
}

export interface SuiteRun {
  at: string;
  /** Wall seconds of each benchmark, and of the whole run. */
  seconds: Record<string, number>;
  total: number;
}

/** Rewrites the table between the markers of bench/README.md from the latest results. */
export function writeReadmeTable(names: readonly string[], run?: SuiteRun): void {
  const readme = readFileSync(README, "utf8");
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`bench/README.md lacks the ${START} … ${END} markers`);
  const table = markdownTable(names, run);
  writeFileSync(README, `${readme.slice(0, start + START.length)}\n${table}\n${readme.slice(end)}`);
}

function markdownTable(names: readonly string[], run?: SuiteRun): string {
  const results = names.map((name) => ({ name, result: readResult(name) }));
  const lines = [
    "| # | benchmark | what | target | measured | stampd | baseline | result |",
    "| --- | --- | --- | --- | --- | --- | --- | --- |",
  ];
  for (const [i, { name, result }] of results.entries()) {
    if (!result) lines.push(`| ${i + 1} | ${name} | not run yet | | | | | |`);
    for (const t of result?.targets ?? []) {
      const cells = [i + 1, name, t.what, t.target, `${t.value} ${t.unit}`.trim(), t.stampd, t.baseline];
      lines.push(`| ${[...cells.map(cell), `**${verdict(t.met)}**`].join(" | ")} |`);
    }
  }
  const measured = results.flatMap(({ result }) => (result ? [result] : []));
  const first = measured[0];
  if (first) {
    const dates = measured.map((r) => r.at.slice(0, 16).replace("T", " ")).sort();
    const when = dates[0] === dates.at(-1) ? dates[0] : `${dates[0]} to ${dates.at(-1)}`;
    const m = first.machine;
    lines.push(
      "",
      `Measured ${when} UTC on Node ${m.node}, ${m.cpu}, ${m.cores} cores (load average ` +
        `${m.loadAverage.join(" ")} when the first benchmark ended; other work shared the machine).`,
    );
  }
  if (run) {
    const each = Object.entries(run.seconds).map(([name, s]) => `${name} ${duration(s)}`);
    lines.push("", `The whole suite took ${duration(run.total)} (${each.join(", ")}).`);
  }
  return lines.join("\n");
}

function cell(value: string | number): string {
  return String(value).replaceAll("|", "\\|");
}

function duration(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  return m ? `${m} min ${s} s` : `${s} s`;
}
