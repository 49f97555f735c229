// npm run bench -- fingerprint: throughput of the fingerprint engine per decomposition method on a
// 64 MiB document, against the raw sha3-256 hashing of the same buffer in the same run (the
// engine's floor: it computes that hash too), plus the latency of comparing two fingerprints.
// Rounds alternate the candidates so drift on a busy machine hits them alike; the best round
// counts (BENCH_ROUNDS sets how many). Input: 64 MiB of word text with paragraphs and headings
// (so the text chunkers run), and for hierarchical also 64 MiB of random bytes (binary input:
// content-defined chunking). No server: this measures the engine that POST /stamps?generate_fp
// and /fingerprint run on each upload.
import { createHash, randomBytes } from "node:crypto";
import { compareFingerprints } from "../server/fingerprints/compare.js";
import { createFingerprinter } from "../server/fingerprints/fingerprinter.js";
import type { DecompositionMethod, FingerprintDocument } from "../server/fingerprints/types.js";
import { type Row, report, round, type Target } from "./lib/report.js";
import { rounds } from "./lib/settings.js";

const MIB = 1024 * 1024;
const SIZE = 64 * MIB;
const UPDATE = 64 * 1024; // the size of the pieces a streamed upload arrives in
const ROUNDS = rounds(3);
const COMPARES = 2000;

const text = wordText(SIZE);
const binary = randomBytes(SIZE);

interface Candidate {
  name: string;
  input: "text" | "binary";
  run: (data: Uint8Array) => FingerprintDocument | null;
}

const sha3: Candidate = {
  name: "sha3-256 (baseline)",
  input: "text",
  run: (data) => {
    const hash = createHash("sha3-256");
    for (let at = 0; at < data.length; at += UPDATE) hash.update(data.subarray(at, at + UPDATE));
    hash.digest();
    return null;
  },
};
const method = (m: DecompositionMethod, input: "text" | "binary"): Candidate => ({
  name: m,
  input,
  run: (data) => {
    const fp = createFingerprinter(m);
    for (let at = 0; at < data.length; at += UPDATE) fp.update(data.subarray(at, at + UPDATE));
    return fp.finish();
  },
});
const candidates = [
  sha3,
  method("flat", "text"),
  method("content_addressed", "text"),
  method("semantic", "text"),
  method("hierarchical", "text"),
  method("hierarchical", "binary"),
];

// Wall time and CPU time (user + system) of this process: on a shared machine the CPU time is the
// steadier figure, the wall time what a client would see. Best round of each.
const wall = new Map<Candidate, number>();
const cpu = new Map<Candidate, number>();
const docs = new Map<Candidate, FingerprintDocument | null>();
for (let round = 0; round < ROUNDS; round++) {
  for (const c of candidates) {
    const startCpu = process.cpuUsage();
    const start = performance.now();
    docs.set(c, c.run(c.input === "text" ? text : binary));
    const used = process.cpuUsage(startCpu);
    wall.set(c, Math.min(wall.get(c) ?? Infinity, (performance.now() - start) / 1000));
    cpu.set(c, Math.min(cpu.get(c) ?? Infinity, (used.user + used.system) / 1e6));
  }
}

const rate = (seconds: number) => SIZE / MIB / seconds;
const rows: Row[] = candidates.map((c) => ({
  candidate: c.name,
  input: c.input,
  "MiB/s cpu": Math.round(rate(cpu.get(c)!)),
  "x sha3-256 cpu": round(cpu.get(sha3)! / cpu.get(c)!, 2),
  "MiB/s wall": Math.round(rate(wall.get(c)!)),
  "x sha3-256 wall": round(wall.get(sha3)! / wall.get(c)!, 2),
  chunks: docs.get(c)?.chunk_count ?? "",
}));

const a = docs.get(candidates[4]!)!;
const edited = method("hierarchical", "text").run(withEdit(text))!;
const compares = [compareRow("same document", a, a), compareRow("1 % edited", a, edited)];
console.table(compares);

const targets: Target[] = candidates
  .filter((c) => c !== sha3)
  .map((c) => ({
    what: `fingerprint ${c.name} (${c.input}), ${SIZE / MIB} MiB: MiB/s (cpu)`,
    target: "report",
    value: Math.round(rate(cpu.get(c)!)),
    unit: "MiB/s",
    stampd: `${Math.round(rate(wall.get(c)!))} MiB/s wall`,
    baseline: `sha3-256 alone ${Math.round(rate(cpu.get(sha3)!))} MiB/s`,
    met: null,
  }));
for (const row of compares) {
  targets.push({
    what: `compare two hierarchical fingerprints of ${SIZE / MIB} MiB (${row.pair})`,
    target: "report",
    value: row["µs per compare"] as number,
    unit: "µs",
    stampd: `overall similarity ${row["overall similarity"]}`,
    baseline: "",
    met: null,
  });
}
report("fingerprint", {
  rows,
  targets,
  note:
    "Best round of each. cpu: user + system time of this process (steadier on a shared machine); " +
    "wall: what a client would wait. The baseline is sha3-256 of the same buffer, which the engine also computes.",
  compares,
  sizeBytes: SIZE,
  updateBytes: UPDATE,
  rounds: ROUNDS,
});

function compareRow(pair: string, x: FingerprintDocument, y: FingerprintDocument): Row {
  compareFingerprints(x, y);
  const start = performance.now();
  for (let i = 0; i < COMPARES; i++) compareFingerprints(x, y);
  const micros = ((performance.now() - start) * 1000) / COMPARES;
  return {
    pair,
    "overall similarity": compareFingerprints(x, y).overall_similarity,
    "µs per compare": round(micros, 1),
    chunks: `${x.chunk_count} vs ${y.chunk_count}`,
  };
}

/** Deterministic word text: sentences, paragraphs, a heading every 40 paragraphs. */
function wordText(size: number): Uint8Array {
  const words =
    "stamp proof chunk merkle record ledger shadow scale prime the of and to in is that for it as with was be by on not this are or from at which but have an they".split(
      " ",
    );
  const out = Buffer.alloc(size);
  let seed = 12345;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  let at = 0;
  let paragraph = 0;
  while (at < size) {
    const roll = next() % 1000;
    let piece = `${words[next() % words.length]}${roll < 80 ? ". " : " "}`;
    if (roll < 8) piece += paragraph++ % 40 === 0 ? "\n\n## Heading\n\n" : "\n\n";
    at += out.write(piece, at);
  }
  return out;
}

/** The text with 1 % of it, in one place, replaced by other text. */
function withEdit(data: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(data);
  const span = Math.floor(data.length / 100);
  const start = Math.floor(data.length / 3);
  copy.set(wordText(span).subarray(0, span), start);
  return copy;
}
