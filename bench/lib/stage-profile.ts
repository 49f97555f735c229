// Reads V8 profiles of a stampd process and adds up their time (a .cpuprofile) or their allocated
// bytes (a sampled heap profile) by stage of the request (stage-rules.ts). Both profiles are trees
// of call frames: a node's stage is the first stage claimed walking from it to the root.
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { claim, type Frame, STAGES, type Stage } from "./stage-rules.js";

/** A call frame as V8's profilers report it (line and column from 0). */
export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

/** The parts of a .cpuprofile (Profiler.stop, `node --cpu-prof`) read here. */
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** The parts of a sampled heap profile (HeapProfiler.stopSampling) read here. */
export interface HeapNode {
  callFrame: CallFrame;
  selfSize: number;
  children: HeapNode[];
}

export type StageTotals = Record<Stage | "idle", number>;

/** Microseconds of a CPU profile by stage, each sample weighted by the time until the next one. */
export function cpuByStage(
  profile: CpuProfile,
  frameOf: (f: CallFrame) => Frame = resolveFrame,
): StageTotals {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const stages = new Map<number, Stage | "idle">();
  const stageOf = (id: number): Stage | "idle" => {
    const known = stages.get(id);
    if (known) return known;
    const up = parent.get(id);
    const stage = claim(frameOf(byId.get(id)!.callFrame)) ?? (up === undefined ? "other" : stageOf(up));
    stages.set(id, stage);
    return stage;
  };
  const totals = zero();
  const { samples, timeDeltas } = profile;
  const mean = timeDeltas.reduce((a, b) => a + b, 0) / Math.max(1, timeDeltas.length);
  samples.forEach((id, i) => {
    totals[stageOf(id)] += timeDeltas[i + 1] ?? mean;
  });
  return totals;
}

/** Bytes of a sampled heap profile by stage. */
export function bytesByStage(head: HeapNode, frameOf: (f: CallFrame) => Frame = resolveFrame): StageTotals {
  const totals = zero();
  const visit = (node: HeapNode, inherited: Stage | "idle") => {
    const stage = claim(frameOf(node.callFrame)) ?? inherited;
    totals[stage] += node.selfSize;
    for (const child of node.children) visit(child, stage);
  };
  visit(head, "other");
  return totals;
}

function zero(): StageTotals {
  return Object.fromEntries([...STAGES, "idle"].map((s) => [s, 0])) as StageTotals;
}

const maps = new Map<string, { map: SourceMap; dir: string; tree: string } | undefined>();

/**
 * A call frame named by its source: through the source map beside a bundle built by
 * scripts/build-server.mjs (`<tree>/dist/...js.map`), as a path in that tree; a source file run as
 * it is, as a path in this checkout; a package's file from
 * its `node_modules/` on; a node internal by its URL. Read the maps before the bundle is built again.
 */
export function resolveFrame(frame: CallFrame): Frame {
  const { url, functionName } = frame;
  // ES modules are named by file URL, CommonJS ones (most packages) by their path.
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (!file.startsWith("/")) return { functionName, path: url };
  const packaged = file.lastIndexOf("/node_modules/");
  if (packaged >= 0) return { functionName, path: file.slice(packaged + 1) };
  const source = sourceMapOf(file);
  if (!source) return { functionName, path: inTree(checkout, file) };
  const entry = source.map.findEntry(frame.lineNumber, frame.columnNumber) as { originalSource?: string };
  if (!entry.originalSource) return { functionName, path: file };
  return { functionName, path: relative(source.tree, resolve(source.dir, entry.originalSource)) };
}

/** This checkout: a module run from source (tsx) is named by its own path. */
const checkout = fileURLToPath(new URL("../..", import.meta.url));

function inTree(tree: string, file: string): string {
  const path = relative(tree, file);
  return path.startsWith("..") ? file : path;
}

function sourceMapOf(file: string) {
  if (!maps.has(file)) {
    const at = file.lastIndexOf("/dist/");
    const mapFile = `${file}.map`;
    maps.set(
      file,
      at >= 0 && existsSync(mapFile)
        ? {
            map: new SourceMap(JSON.parse(readFileSync(mapFile, "utf8"))),
            dir: dirname(mapFile),
            tree: file.slice(0, at),
          }
        : undefined,
    );
  }
  return maps.get(file);
}
