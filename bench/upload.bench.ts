// npm run bench -- upload: POST /hash (SHA-256, SHA3-256, BLAKE3) and POST /stamps (SHA3-256) on a
// 1 GiB upload, against the native reference on the same file: `openssl dgst -sha256` and
// `-sha3-256` (a process each); BLAKE3 against the fastest kept npm package hashing the file alone
// in this process; and stampd's peak resident memory while it takes the uploads. The form fields
// that change how the file is read (`algorithm`, `generate_fp`) are sent in both orders: before
// the file (read straight away) and after it (every algorithm at once for POST /hash, a spool
// file for POST /stamps), and peak memory is reported for each order. The file is
// generated once in a temporary folder and deleted after. stampd runs in a process of its own
// (its RSS is read from /proc/<pid>/status); the uploads come from another (bench/lib/upload-client.ts),
// which streams the file without holding it. Every digest is checked against the reference's.
import { randomFillSync } from "node:crypto";
import { closeSync, openSync, writeSync } from "node:fs";
import { join } from "node:path";
import { cpuSeconds } from "./lib/cpu-seconds.js";
import { blake3Packages, hashBytes, hashFile, openssl, type Timed } from "./lib/hash-alone.js";
import { ask, forkEntry, stop, tempDir } from "./lib/processes.js";
import { type Row, report, round, type Target } from "./lib/report.js";
import { alternate, least } from "./lib/rounds.js";
import { MiB, mib, peakRssDuring, rssOf } from "./lib/rss.js";
import { positive, rounds } from "./lib/settings.js";
import { startStampdProcess } from "./lib/stampd-process.js";
import type { UploadCommand, UploadResult } from "./lib/upload-client.js";

const SIZE = Math.round(positive("BENCH_UPLOAD_MIB", 1024) * MiB);
const RATIO = 0.8;
const RSS_LIMIT_MIB = 128;
const FIELD_FIRST = "field first";
const FILE_FIRST = "field after the file";

const dir = tempDir();
const file = join(dir.path, "upload.bin");
writeFile(file, SIZE);
const stampd = await startStampdProcess(join(dir.path, "stampd"), {
  MAX_UPLOAD_BYTES: String(Math.max(SIZE, 1024 * MiB)),
});
const client = forkEntry("bench/lib/upload-client.ts");
const base = `http://127.0.0.1:${stampd.ready.http}`;

interface Measured extends Timed {
  /** Peak RSS of stampd during the upload (server candidates only). */
  peak?: number;
  /** CPU seconds stampd spent on the upload, all its threads (steadier than time on a busy machine). */
  cpu?: number;
}

const blake3 = await fastestPackage();
const fastestBlake3 = blake3.name;

const candidates: Record<string, () => Promise<Measured>> = {
  "openssl sha256": () => openssl("sha256", file),
  "openssl sha3-256": () => openssl("sha3-256", file),
  [`${fastestBlake3} blake3 (alone)`]: () => hashFile(blake3Packages[fastestBlake3]!, file),
  "POST /hash sha256": () => upload("/hash?algorithm=sha256", (b) => b.hash),
  "POST /hash sha3-256": () => upload("/hash?algorithm=sha3-256", (b) => b.hash),
  "POST /hash blake3": () => upload("/hash?algorithm=blake3", (b) => b.hash),
  "POST /stamps": () => upload("/stamps", (b) => b.document_hash),
  [`POST /hash sha3-256, ${FIELD_FIRST}`]: () => upload("/hash", (b) => b.hash, { algorithm: "sha3-256" }),
  [`POST /hash sha3-256, ${FILE_FIRST}`]: () =>
    upload("/hash", (b) => b.hash, { algorithm: "sha3-256" }, true),
  [`POST /stamps generate_fp=false, ${FIELD_FIRST}`]: () =>
    upload("/stamps", (b) => b.document_hash, { generate_fp: "false" }),
  [`POST /stamps generate_fp=false, ${FILE_FIRST}`]: () =>
    upload("/stamps", (b) => b.document_hash, { generate_fp: "false" }, true),
};

try {
  const idle = rssOf(stampd.pid).rss;
  // Warm-up: modules, JIT and the database are in memory before anything is measured.
  for (const path of ["/hash?algorithm=sha256", "/hash?algorithm=blake3", "/stamps"]) {
    await upload(path, () => "");
  }
  await upload("/stamps", () => "", { generate_fp: "false" }, true);
  const names = Object.keys(candidates);
  const settings = { rounds: rounds(2), uploadBytes: SIZE };
  const runs = await alternate(names, settings.rounds, (name) => candidates[name]!());
  checkDigests(runs);

  const rate = (name: string) => SIZE / MiB / least(runs[name]!.map((r) => r.seconds));
  const peakOf = (name: string) => Math.max(...runs[name]!.map((r) => r.peak ?? 0));
  const rows: Row[] = names.map((name) => ({
    candidate: name,
    "MiB/s best": Math.round(rate(name)),
    "seconds best": round(least(runs[name]!.map((r) => r.seconds)), 2),
    "stampd CPU s best": name.startsWith("POST") ? least(runs[name]!.map((r) => r.cpu ?? 0)) : "",
    "peak RSS MiB": name.startsWith("POST") ? mib(peakOf(name)) : "",
    "growth over idle MiB": name.startsWith("POST") ? mib(peakOf(name) - idle) : "",
  }));
  const compare = (ours: string, reference: string): Target => {
    const value = round(rate(ours) / rate(reference));
    return {
      what: `${ours}, ${mib(SIZE)} MiB: MiB/s`,
      target: `≥ ${RATIO} × ${reference}`,
      value,
      unit: "×",
      stampd: `${Math.round(rate(ours))} MiB/s`,
      baseline: `${Math.round(rate(reference))} MiB/s`,
      met: value >= RATIO,
    };
  };
  const servers = names.filter((name) => name.startsWith("POST"));
  const fileFirst = servers.filter((name) => name.endsWith(FILE_FIRST));
  const fieldsFirst = servers.filter((name) => !fileFirst.includes(name));
  const peakTarget = (order: string, which: string[]): Target => {
    const peak = Math.max(...which.map(peakOf));
    return {
      what: `stampd peak RSS during ${mib(SIZE)} MiB uploads, ${order}`,
      target: `< ${RSS_LIMIT_MIB} MiB`,
      value: mib(peak),
      unit: "MiB",
      stampd: `idle ${mib(idle)} MiB`,
      baseline: "",
      met: peak < RSS_LIMIT_MIB * MiB,
    };
  };
  const targets: Target[] = [
    compare("POST /hash sha256", "openssl sha256"),
    compare("POST /hash sha3-256", "openssl sha3-256"),
    compare("POST /stamps", "openssl sha3-256"),
    compare("POST /hash blake3", `${fastestBlake3} blake3 (alone)`),
    compare(`POST /hash sha3-256, ${FILE_FIRST}`, "openssl sha3-256"),
    compare(`POST /stamps generate_fp=false, ${FILE_FIRST}`, "openssl sha3-256"),
    peakTarget("fields first (or as query parameters)", fieldsFirst),
    peakTarget("fields after the file", fileFirst),
  ];
  report("upload", {
    rows,
    targets,
    note:
      "MiB/s of the fastest round; upload times run from the first byte sent to the response's end. " +
      "Peak RSS: stampd's VmHWM (reset before each upload) and 10 ms samples of VmRSS.",
    idleRssMiB: mib(idle),
    blake3AloneMiBps: blake3.rates,
    ...settings,
    runs,
  });
} finally {
  client.send("exit");
  await stop(stampd.process);
  dir.cleanup();
}

async function upload(
  path: string,
  digestOf: (body: Record<string, string>) => string | undefined,
  fields?: Record<string, string>,
  fileFirst = false,
): Promise<Measured> {
  const command: UploadCommand = { url: `${base}${path}`, file, fields, fileFirst };
  const cpuBefore = cpuSeconds(stampd.pid);
  const { result, peak } = await peakRssDuring(stampd.pid, () => ask<UploadResult>(client, command));
  const cpu = round(cpuSeconds(stampd.pid) - cpuBefore, 2);
  if (result.status >= 300) throw new Error(`${path} answered ${result.status}: ${result.body}`);
  return { seconds: result.seconds, hex: digestOf(JSON.parse(result.body)) ?? "", peak, cpu };
}

/** Every server digest must equal the reference's for its algorithm: a fast wrong answer is no answer. */
function checkDigests(runs: Record<string, Measured[]>): void {
  const reference: Record<string, string> = {
    "POST /hash sha256": "openssl sha256",
    "POST /hash sha3-256": "openssl sha3-256",
    "POST /stamps": "openssl sha3-256",
    "POST /hash blake3": `${fastestBlake3} blake3 (alone)`,
    [`POST /hash sha3-256, ${FIELD_FIRST}`]: "openssl sha3-256",
    [`POST /hash sha3-256, ${FILE_FIRST}`]: "openssl sha3-256",
    [`POST /stamps generate_fp=false, ${FIELD_FIRST}`]: "openssl sha3-256",
    [`POST /stamps generate_fp=false, ${FILE_FIRST}`]: "openssl sha3-256",
  };
  for (const [ours, theirs] of Object.entries(reference)) {
    const want = runs[theirs]![0]!.hex;
    for (const run of runs[ours]!) {
      if (run.hex !== want) throw new Error(`${ours} digest ${run.hex} differs from ${theirs}'s ${want}`);
    }
  }
}

/** The BLAKE3 package that hashes fastest alone (MiB/s on a 64 MiB slice in memory), with every rate. */
async function fastestPackage(): Promise<{ name: string; rates: Record<string, number> }> {
  const slice = new Uint8Array(64 * MiB);
  randomFillSync(slice);
  const rates: Record<string, number> = {};
  for (const [name, make] of Object.entries(blake3Packages)) {
    rates[name] = Math.round(64 / (await hashBytes(make, slice)));
  }
  return { name: Object.entries(rates).sort((a, b) => b[1] - a[1])[0]![0], rates };
}

/** `size` bytes of random-looking data: one random MiB written over and over (hashing cost is the same). */
function writeFile(path: string, size: number): void {
  const block = new Uint8Array(MiB);
  randomFillSync(block);
  const fd = openSync(path, "w");
  try {
    for (let written = 0; written < size; written += MiB)
      writeSync(fd, block, 0, Math.min(MiB, size - written));
  } finally {
    closeSync(fd);
  }
}
