// npm run bench -- fingerprint: throughput of the fingerprint engine per decomposition method on a
// 64 MiB document, against the raw sha3-256 hashing of the same buffer in the same run (the
// engine's floor: it computes that hash too), plus the latency of comparing two fingerprints.
// Rounds alternate the candidates so drift on a busy machine hits them alike; the best round
// counts. Input: 64 MiB of word text with paragraphs and headings (so the text chunkers run), and
// for hierarchical also 64 MiB of random bytes (binary input: content-defined chunking).
import { createHash, randomBytes } from "node:crypto";
import { compareFingerprints } from "../server/fingerprints/compare.js";
import { createFingerprinter } from "../server/fingerprints/fingerprinter.js";
import type { DecompositionMethod, FingerprintDocument } from "../server/fingerprints/types.js";
import { type Row, report } from "./lib/report.js";

const MIB = 1024 * 1024;
const SIZE = 64 * MIB;
const UPDATE = 64 * 1024; // the size of the pieces a streamed upload arrives in
const ROUNDS = 3;
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
const rows: Row[] = candidates.map((c) => {
  const doc = docs.get(c);
  return {
    candidate: c.name,
    input: c.input,
    "MiB/s cpu": Math.round(rate(cpu.get(c)!)),
    "x sha3-256 cpu": Number((cpu.get(sha3)! / cpu.get(c)!).toFixed(2)),
    "MiB/s wall": Math.round(rate(wall.get(c)!)),
    "x sha3-256 wall": Number((wall.get(sha3)! / wall.get(c)!).toFixed(2)),
    chunks: doc?.chunk_count ?? "",
  };
});

const a = docs.get(candidates[4]!)!;
const edited = method("hierarchical", "text").run(withEdit(text));
rows.push(compareRow("compare (same document)", a, a));
rows.push(compareRow("compare (1 % edited)", a, edited!));
report("fingerprint", rows, { sizeBytes: SIZE, updateBytes: UPDATE, rounds: ROUNDS });

function compareRow(name: string, x: FingerprintDocument, y: FingerprintDocument): Row {
  compareFingerprints(x, y);
  const start = performance.now();
  for (let i = 0; i < COMPARES; i++) compareFingerprints(x, y);
  const micros = ((performance.now() - start) * 1000) / COMPARES;
  return {
    candidate: name,
    input: `overall ${compareFingerprints(x, y).overall_similarity}`,
    "MiB/s cpu": "",
    "x sha3-256 cpu": "",
    "MiB/s wall": "",
    "x sha3-256 wall": "",
    chunks: `${micros.toFixed(1)} µs per compare (wall)`,
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
