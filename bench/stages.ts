// npm run bench:stages: CPU and allocation budgets of a REST request by stage (issue #24): parse,
// match, validate, auth, limit, domain, store, serialize, write, then express and our other
// middleware (framework), V8's garbage collector (gc), native code with no JavaScript on the stack
// (program) and the rest (other). Stages are told by bench/lib/stage-rules.ts.
//
//   npm run bench:stages -- rest-create rest-get [--before <tree>] [--pairs 2] [--requests 20000]
//     profiles stampd (bench/lib/stage-run.ts) under each scenario's load, this checkout and, with
//     --before, another (a worktree of an older commit with node_modules linked), alternately, and
//     prints medians per stage over the pairs.
//   npm run bench:stages -- --from runs.json
//     prints the tables again from the runs an earlier call saved with --out runs.json.
//   npm run bench:stages -- <file.cpuprofile> --requests N
//     budgets a profile taken elsewhere (BENCH_CPU_PROF=<folder> npm run bench -- rest-get), given
//     how many requests it covered; its bundle's source map must still be the one it ran.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { root } from "./lib/processes.js";
import { median } from "./lib/rounds.js";
import { cpuByStage, type StageTotals } from "./lib/stage-profile.js";
import { STAGES, type Stage } from "./lib/stage-rules.js";
import { SCENARIOS, type Scenario, type StageRun, stageRun } from "./lib/stage-run.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    requests: { type: "string", default: "20000" },
    warmup: { type: "string", default: "3000" },
    connections: { type: "string", default: "50" },
    interval: { type: "string", default: "200" },
    pairs: { type: "string", default: "1" },
    before: { type: "string" },
    out: { type: "string" },
    "keep-profiles": { type: "string" },
    from: { type: "string" },
  },
});
const requests = Number(values.requests);

const [first] = positionals;
if (positionals.length === 1 && first?.endsWith(".cpuprofile")) {
  const totals = cpuByStage(JSON.parse(readFileSync(first, "utf8")));
  console.log(cpuTable(totals, requests));
} else {
  const runs = values.from
    ? (JSON.parse(readFileSync(values.from, "utf8")) as StageRun[])
    : await profiledRuns();
  if (values.out) writeFileSync(values.out, JSON.stringify(runs, null, 2));
  // The first run of the first pair is the older checkout's, when there is one.
  const trees = [...new Set(runs.map((r) => r.tree))];
  for (const scenario of new Set(runs.map((r) => r.scenario))) {
    console.log(
      budgetTable(
        scenario,
        runs.filter((r) => r.scenario === scenario),
        trees,
      ),
    );
  }
}

/** Runs of each scenario, pairs alternating which checkout goes first. */
async function profiledRuns(): Promise<StageRun[]> {
  const scenarios = positionals.length ? positionals : [...SCENARIOS];
  for (const s of scenarios) if (!SCENARIOS.includes(s as Scenario)) throw new Error(`unknown scenario ${s}`);
  const trees = values.before ? [resolve(values.before), root] : [root];
  const options = {
    requests,
    warmup: Number(values.warmup),
    connections: Number(values.connections),
    intervalUs: Number(values.interval),
    keepProfile: values["keep-profiles"],
  };
  const runs: StageRun[] = [];
  for (let pair = 0; pair < Number(values.pairs); pair++) {
    for (const scenario of scenarios as Scenario[]) {
      for (const tree of pair % 2 ? [...trees].reverse() : trees) {
        const run = await stageRun(scenario, { ...options, tree });
        console.error(
          `${scenario} ${tree}: ${(run.processCpuUs / run.requests).toFixed(1)} µs CPU per request`,
        );
        runs.push(run);
      }
    }
  }
  return runs;
}

/**
 * The table of one profile: share of the busy (not idle) samples and their µs per request by stage,
 * in sampled (wall) time: on a loaded machine more than the CPU the thread got.
 */
function cpuTable(totals: StageTotals, requests: number): string {
  const busy = busyOf(totals);
  const lines = ["| stage | share of busy | µs CPU / request |", "|---|--:|--:|"];
  for (const stage of STAGES)
    lines.push(`| ${stage} | ${percent(totals[stage], busy)} | ${(totals[stage] / requests).toFixed(1)} |`);
  lines.push(`| **busy (main thread)** | 100 % | ${(busy / requests).toFixed(1)} |`);
  return lines.join("\n");
}

/**
 * Medians over the runs of each tree. A stage's µs per request is its share of the main thread's
 * busy samples times the main thread's CPU per request (/proc): samples count wall time, and on a
 * shared machine part of it is spent descheduled.
 */
function budgetTable(scenario: string, runs: StageRun[], trees: string[]): string {
  const of = (tree: string) => runs.filter((r) => r.tree === tree);
  const names = trees.length > 1 ? ["before", "after"] : ["now"];
  const usPerRequest = (tree: string, figure: (r: StageRun) => number) =>
    median(of(tree).map((r) => figure(r) / r.requests));
  const stageUs = (r: StageRun, stage: Stage) => (r.sampledUs[stage] / busyOf(r.sampledUs)) * r.mainCpuUs;
  const kib = (r: StageRun, stages: readonly Stage[]) =>
    stages.reduce((n, s) => n + r.allocatedBytes[s], 0) / 1024;
  const header = [
    "stage",
    ...names.map((n) => `${n}: share`),
    ...names.map((n) => `${n}: µs / req`),
    ...names.map((n) => `${n}: KiB / req`),
  ];
  const lines = [
    `#### ${scenario}`,
    "",
    `| ${header.join(" | ")} |`,
    `|---|${header
      .slice(1)
      .map(() => "--:")
      .join("|")}|`,
  ];
  const row = (label: string, cells: string[]) => lines.push(`| ${label} | ${cells.join(" | ")} |`);
  const us = (figure: (r: StageRun) => number) => trees.map((t) => usPerRequest(t, figure).toFixed(1));
  const blank = trees.map(() => "");
  for (const stage of STAGES) {
    row(stage, [
      ...trees.map((t) => percent(median(of(t).map((r) => r.sampledUs[stage] / busyOf(r.sampledUs))), 1)),
      ...us((r) => stageUs(r, stage)),
      ...trees.map((t) => usPerRequest(t, (r) => kib(r, [stage])).toFixed(2)),
    ]);
  }
  row("**main thread** (/proc)", [
    ...trees.map(() => "100 %"),
    ...us((r) => r.mainCpuUs),
    ...trees.map((t) => usPerRequest(t, (r) => kib(r, STAGES)).toFixed(2)),
  ]);
  row("other threads (/proc)", [...blank, ...us((r) => r.processCpuUs - r.mainCpuUs), ...blank]);
  row("**process** (/proc)", [...blank, ...us((r) => r.processCpuUs), ...blank]);
  if (trees.length > 1) {
    const [before, after] = trees.map(of);
    const ratios = after!.map((r, i) => r.processCpuUs / before![i]!.processCpuUs);
    const shown = ratios.map((x) => x.toFixed(3)).join(", ");
    lines.push(
      "",
      `Process CPU per request, after / before, per pair: ${shown} (median ${median(ratios).toFixed(3)}).`,
    );
  }
  const loads = runs.map((r) => r.loadAverage.toFixed(1)).join(", ");
  lines.push(
    "",
    `${of(trees.at(-1)!).length} run(s) per tree of ${runs[0]?.requests} requests each; load average ${loads}.`,
  );
  return lines.join("\n");
}

function busyOf(totals: StageTotals): number {
  return STAGES.reduce((n, s) => n + totals[s], 0);
}

function percent(part: number, whole: number): string {
  return `${((100 * part) / whole).toFixed(1)} %`;
}
