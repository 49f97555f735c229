import { mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants, createGzip } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MiB, peakRssDuring, rssOf } from "../../bench/lib/rss.js";
import { ServerProcess } from "../helpers/server-process.js";

// Issue #35 item 3, as the audit made it: MAX_LARGE_BODIES_PER_CLIENT counted wire bytes, so eight
// 204 KB gzipped /fingerprint/compare bodies from one client inflated at once (RSS 593 -> 1,122 MB),
// and plain bodies from eight addresses were all read at once, with no bound across clients
// (734 MB). Decoded bytes are counted now, and MAX_LARGE_BODY_BYTES_TOTAL bounds them across
// clients. The real server in a child process, its memory read from /proc; the sizes are scaled
// down (16 MiB bodies, a 16 MiB allowance) so that the old code's peak stays affordable here.
const BODY = 16 * MiB;
const ALLOWANCE = 16 * MiB;
/**
 * What one allowance may cost at its peak: the decoded bytes, their text and the parsed document
 * (about four times its JSON, docs/fingerprint.md part 8), six times it; and as much again for the
 * body read before it, which the collector may not have reclaimed yet (V8 frees lazily). Measured
 * here: 83-118 MiB of growth with the bounds, 310-353 MiB without (eight bodies at once).
 */
const PEAK_PER_ALLOWANCE = 12;

let server: ServerProcess;
let dataDir: string;
/** The server's RSS once started and warmed up: the peaks are measured from it. */
let baseline: number;
// A server per case: memory a process has held stays resident after, so one case's peak would
// hide the next one's.
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "stampd-memory-"));
  server = await ServerProcess.start({
    DATA_DIR: dataDir,
    RATE_LIMIT_ENABLED: "false",
    // The suite speaks for several addresses through X-Forwarded-For, as a proxy on this machine.
    TRUSTED_PROXIES: "127.0.0.1",
    MAX_FINGERPRINT_JSON_BYTES: String(BODY + MiB),
    MAX_LARGE_BODY_BYTES_TOTAL: String(ALLOWANCE + MiB),
  });
  // One comparison read and refused: the code paths are loaded before the baseline is taken.
  expect((await post(compareJson(2 * MiB), "192.0.2.1").answer).status).toBe(400);
  baseline = rssOf(server.pid).rss;
}, 120_000);
afterEach(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A comparison whose first fingerprint lists chunks until the JSON is `size` bytes (a 400 once read). */
function compareJson(size: number): Buffer {
  const chunk = `{"index":0,"offset":0,"length":4096,"hash":"${"ab".repeat(32)}"}`;
  const head = '{"fingerprint1":{"format":"stampd.fingerprint/v1","chunks":[';
  const tail = ']},"fingerprint2":{}}';
  const count = Math.floor((size - head.length - tail.length) / (chunk.length + 1));
  return Buffer.from(`${head}${Array(count).fill(chunk).join(",")}${tail}`);
}

interface Answer {
  status: number;
  code?: string;
  error?: string;
  retryAfter?: string;
}

interface Sending {
  headers?: Record<string, string>;
  /** Sends only this many bytes until `finish()`. */
  holdAfter?: number;
}

/** POST /fingerprint/compare from `client` (X-Forwarded-For). */
function post(body: Buffer, client: string, { headers = {}, holdAfter }: Sending = {}) {
  const { hostname, port } = new URL(server.baseUrl);
  const req = http.request({
    host: hostname,
    port,
    method: "POST",
    path: "/fingerprint/compare",
    headers: {
      "content-type": "application/json",
      "content-length": String(body.length),
      "x-forwarded-for": client,
      ...headers,
    },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.once("response", (res) => {
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.once("end", () => {
        const json = JSON.parse(Buffer.concat(parts).toString() || "{}") as Record<string, string>;
        const retryAfter = res.headers["retry-after"];
        resolve({ status: res.statusCode!, code: json.code, error: json.error, retryAfter });
      });
    });
    // A refused body may be cut off by the answer.
    req.once("error", (err) => (req.writableEnded ? undefined : reject(err)));
  });
  if (holdAfter === undefined) req.end(body);
  else req.write(body.subarray(0, holdAfter));
  return { answer, finish: () => req.end(body.subarray(holdAfter ?? body.length)) };
}

/** A gzip body whose first `held` bytes inflate, on their own, to more than MAX_JSON_BYTES. */
async function gzipInTwo(json: Buffer): Promise<{ bytes: Buffer; held: number }> {
  const gzip = createGzip();
  const out: Buffer[] = [];
  gzip.on("data", (part: Buffer) => out.push(part));
  gzip.write(json.subarray(0, 4 * MiB));
  await new Promise<void>((resolve) => gzip.flush(constants.Z_SYNC_FLUSH, () => resolve()));
  const held = out.reduce((n, part) => n + part.length, 0);
  const ended = new Promise((resolve) => gzip.once("end", resolve));
  gzip.end(json.subarray(4 * MiB));
  await ended;
  return { bytes: Buffer.concat(out), held };
}

/** Asks until `want` answers (the held body is counted once the server has read its start). */
async function until(want: number, ask: () => Promise<Answer>): Promise<Answer | undefined> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const reply = await ask();
    if (reply.status === want) return reply;
    expect(reply.status).toBe(400);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/**
 * Sends `requests` at once and reports the answers and the server's peak RSS over its baseline.
 * `finish`, when given, is called after half a second: the held bodies are in by then.
 */
async function peakOf(requests: () => Promise<Answer>[], finish?: () => void) {
  const { result, peak } = await peakRssDuring(server.pid, async () => {
    const answers = requests();
    if (finish) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      finish();
    }
    return Promise.all(answers);
  });
  return { answers: result, growth: peak - baseline };
}

describe("large JSON bodies, counted as decoded", () => {
  it("gzip bodies from one client: one inflates at a time, the others are 429 with Retry-After", async () => {
    const json = compareJson(BODY);
    const { bytes, held } = await gzipInTwo(json);
    expect(bytes.length).toBeLessThan(1024 * 1024);
    const headers = { "content-encoding": "gzip" };
    // One body of the client held half-sent, past MAX_JSON_BYTES once inflated: the next are refused.
    const first = post(bytes, "198.51.100.7", { headers, holdAfter: held });
    const refused = await until(429, () => post(bytes, "198.51.100.7", { headers }).answer);
    expect(refused).toMatchObject({ status: 429, error: "rate_limit_exceeded", retryAfter: "1" });
    first.finish();
    expect((await first.answer).status).toBe(400);
    // The audit's eight at once from one client.
    const { answers, growth } = await peakOf(() =>
      Array.from({ length: 8 }, () => post(bytes, "198.51.100.7", { headers }).answer),
    );
    for (const a of answers) {
      expect([400, 429]).toContain(a.status);
      if (a.status === 429) expect(a.retryAfter).toBe("1");
    }
    expect(growth).toBeLessThan(PEAK_PER_ALLOWANCE * ALLOWANCE);
  });

  it("plain bodies from eight addresses: the total read at once is bounded, beyond it 503 server_busy", async () => {
    const json = compareJson(BODY);
    // One address's body held half-sent: its declared length takes the allowance.
    const first = post(json, "203.0.113.1", { holdAfter: 1024 });
    const busy = await until(503, () => post(json, "203.0.113.2").answer);
    expect(busy).toMatchObject({ status: 503, code: "server_busy", retryAfter: "1" });
    first.finish();
    expect((await first.answer).status).toBe(400);
    // The audit's bodies from several addresses at once: all sent but their last bytes, then ended together.
    const sends = Array.from({ length: 8 }, (_, i) =>
      post(json, `203.0.113.${10 + i}`, { holdAfter: json.length - 1024 }),
    );
    const { answers, growth } = await peakOf(
      () => sends.map((s) => s.answer),
      () => {
        for (const s of sends) s.finish();
      },
    );
    for (const a of answers) {
      expect([400, 503]).toContain(a.status);
      if (a.status === 503) expect(a).toMatchObject({ code: "server_busy", retryAfter: "1" });
    }
    expect(answers.some((a) => a.status === 400)).toBe(true);
    expect(growth).toBeLessThan(PEAK_PER_ALLOWANCE * ALLOWANCE);
  });
});
