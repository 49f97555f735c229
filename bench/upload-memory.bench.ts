// npm run bench -- upload-memory: the server's memory while it takes 200 MiB uploads on POST /stamps
// (also with a fingerprint, hashed and fingerprinted in one pass) and POST /hash. The real server (server/main.ts) runs in a child process; this process streams each
// upload from a generator (never holding it) and samples the child's resident set size from
// /proc/<pid>/status. The peak is also read from VmHWM, reset after warm-up through
// /proc/<pid>/clear_refs, so a spike between two samples is not missed. Linux only.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { report } from "./lib/report.js";

const MiB = 1024 * 1024;
const SIZE = 200 * MiB;
const CHUNK = 64 * 1024;
const SAMPLE_MS = 10;
const BOUNDARY = "upload-memory-bench";
const root = fileURLToPath(new URL("..", import.meta.url));

const targets = [
  { name: "POST /stamps", path: "/stamps" },
  { name: "POST /stamps (generate_fp)", path: "/stamps?generate_fp=true" },
  { name: "POST /hash (sha3-256)", path: "/hash?algorithm=sha3-256" },
  { name: "POST /hash (blake3)", path: "/hash?algorithm=blake3" },
];

const dataDir = mkdtempSync(join(tmpdir(), "stampd-bench-"));
const { server, port } = await startServer();
try {
  // Warm-up: modules, JIT and the database are in memory before the baseline is taken.
  for (const target of targets) await upload(port, target.path, 32 * MiB);
  const rows = [];
  for (const target of targets) {
    resetPeak(server.pid!);
    const baseline = rssOf(server.pid!).rss;
    let sampled = baseline;
    const timer = setInterval(() => {
      sampled = Math.max(sampled, rssOf(server.pid!).rss);
    }, SAMPLE_MS);
    const started = performance.now();
    const status = await upload(port, target.path, SIZE);
    const seconds = (performance.now() - started) / 1000;
    clearInterval(timer);
    const { hwm } = rssOf(server.pid!);
    const peak = Math.max(sampled, hwm);
    rows.push({
      endpoint: target.name,
      status,
      "upload MiB": SIZE / MiB,
      "MB/s": Number((SIZE / 1e6 / seconds).toFixed(1)),
      "baseline RSS MiB": mib(baseline),
      "peak RSS MiB": mib(peak),
      "growth MiB": mib(peak - baseline),
      "growth / upload": Number(((peak - baseline) / SIZE).toFixed(4)),
    });
  }
  report("upload-memory", rows, { uploadBytes: SIZE, chunkBytes: CHUNK, sampleMs: SAMPLE_MS });
} finally {
  await stop(server);
  rmSync(dataDir, { recursive: true, force: true });
}

/** The real server, on a free port, without rate limits (a 200 MiB upload is one request). */
async function startServer(): Promise<{ server: ChildProcess; port: number }> {
  const server = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: "development",
      LOG_LEVEL: "info",
      HOST: "127.0.0.1",
      PORT: "0",
      GRPC_PORT: "0",
      DATA_DIR: dataDir,
      RATE_LIMIT_ENABLED: "false",
      VALIDATE_RESPONSES: "false",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: server.stdout! })) {
    const m = /listening on http:\/\/\S+:(\d+)/.exec(line);
    if (m) return { server, port: Number(m[1]) };
  }
  throw new Error(`server exited with ${server.exitCode}`);
}

/** Streams a multipart upload of `size` bytes, generated chunk by chunk; resolves with the status. */
function upload(port: number, path: string, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        port,
        path,
        method: "POST",
        headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          res.statusCode! < 300 ? resolve(res.statusCode!) : reject(new Error(`${path}: ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n\r\n`;
    const chunk = Buffer.alloc(CHUNK, 0x5a);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(CHUNK, size - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once("drain", pump);
      }
      req.end(`\r\n--${BOUNDARY}--\r\n`);
    };
    req.write(head);
    pump();
  });
}

/** VmRSS (current) and VmHWM (peak since the last reset) of a process, in bytes. */
function rssOf(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

/** Resets VmHWM to the current RSS (proc(5), clear_refs value 5). */
function resetPeak(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, "5");
}

function stop(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    server.once("exit", () => resolve());
    server.kill("SIGTERM");
  });
}

function mib(bytes: number): number {
  return Number((bytes / MiB).toFixed(1));
}
