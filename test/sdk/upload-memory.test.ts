import { spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, truncateSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";

const MiB = 1024 * 1024;
const FILE_BYTES = 256 * MiB;
/**
 * Uploaded first: a client's first sizeable upload raises its peak by 35 to 60 MiB whatever the
 * size (buffers the collector has not reclaimed yet, measured), so the baseline is taken after
 * one, in the steady state of a client with uploads under way.
 */
const WARM_UP_BYTES = 32 * MiB;
/**
 * How much the client's peak resident set may grow while it uploads the file: a quarter of it.
 * Measured: 0 when streamed; 190 to 220 MiB when Node's fetch keeps a copy of the body.
 */
const MAX_GROWTH_BYTES = 64 * MiB;
const child = fileURLToPath(new URL("./upload-memory-child.ts", import.meta.url));

let svc: RunningService;
let key: string;
let dir: string;
let small: string;
let file: string;

/**
 * A sparse file of `bytes` with random 64 KiB blocks every 16 MiB, so that a part lost, repeated
 * or misplaced changes its hash, yet it takes a megabyte of disk.
 */
function writeDocument(path: string, bytes: number): void {
  closeSync(openSync(path, "w"));
  truncateSync(path, bytes);
  const fd = openSync(path, "r+");
  for (let at = 0; at < bytes; at += 16 * MiB) writeSync(fd, randomBytes(64 * 1024), 0, 64 * 1024, at);
  closeSync(fd);
}

async function sha3(path: string): Promise<string> {
  const hash = createHash("sha3-256");
  for await (const chunk of createReadStream(path)) hash.update(chunk);
  return hash.digest("hex");
}

interface ChildReport {
  baselineKiB: number;
  afterPathKiB: number;
  afterStreamKiB: number;
  afterBlobKiB: number;
  stampHash: string;
  streamHash: string;
  blobHashValid: boolean;
}

/** Runs the uploading client in its own Node process and returns what it printed. */
function runChild(): Promise<ChildReport> {
  const proc = spawn(process.execPath, ["--import", "tsx", child, svc.baseUrl, key, small, file]);
  let out = "";
  let err = "";
  proc.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  proc.stderr.setEncoding("utf8").on("data", (text: string) => (err += text));
  return new Promise((resolve, reject) => {
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code === 0) resolve(JSON.parse(out) as ChildReport);
      else reject(new Error(`upload child exited with ${code}: ${err}`));
    });
  });
}

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  key = (await issueKey(svc)).key;
  dir = mkdtempSync(join(tmpdir(), "stampd-sdk-upload-"));
  small = join(dir, "small.bin");
  file = join(dir, "large.bin");
  writeDocument(small, WARM_UP_BYTES);
  writeDocument(file, FILE_BYTES);
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("SDK uploads on Node", () => {
  it("stream a 256 MiB file as a path, a Node stream and a Blob without holding it in memory", {
    timeout: 180_000,
  }, async () => {
    const report = await runChild();
    const expected = await sha3(file);
    expect(report.stampHash).toBe(expected);
    expect(report.streamHash).toBe(expected);
    expect(report.blobHashValid).toBe(true);
    const growth = (kib: number) => (kib - report.baselineKiB) * 1024;
    expect(growth(report.afterPathKiB)).toBeLessThan(MAX_GROWTH_BYTES);
    expect(growth(report.afterStreamKiB)).toBeLessThan(MAX_GROWTH_BYTES);
    expect(growth(report.afterBlobKiB)).toBeLessThan(MAX_GROWTH_BYTES);
  });
});
