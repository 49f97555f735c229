// The CLI under the default rate limits (issue #36): the README flow sends each request once and
// says on stderr whenever it waits a limit out; `--hash-only` sizes its batches to the key's bulk
// items budget and waits out pushback, so an authenticated key stamps 10 000 hashes at once and an
// anonymous caller's larger job still completes, within its budget.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grpcUrlOf } from "../../cli/client.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { runStampd } from "./run-stampd.js";

/** Spawns, waits of a few seconds for an anonymous budget, and 10 000 files hashed. */
const TIMEOUT = 300_000;

let svc: RunningService;
let dir: string;
/** Every request the server received: `GET /stamps/stp_… 200`. */
const received: string[] = [];

beforeAll(async () => {
  // The default limits, each CLI run from an address of its own; batches sealed every 100 ms.
  svc = await startService({ BATCH_INTERVAL_MS: "100", TRUSTED_PROXIES: "none" });
  svc.service.http.on("request", (req, res) => {
    res.on("finish", () => received.push(`${req.method} ${req.url} ${res.statusCode}`));
  });
  svc.service.http.on("upgrade", (req) => received.push(`UPGRADE ${req.url?.split("?")[0]}`));
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-limits-"));
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

const waitLines = (err: string) => err.split("\n").filter((l) => l.startsWith("stampd: rate limited"));

describe("the README flow without a key", { timeout: TIMEOUT }, () => {
  it("stamp --wait confirmed --out: each request once, and one stderr line per wait", async () => {
    const file = join(dir, "contract.txt");
    writeFileSync(file, `a contract ${Date.now()}`);
    received.length = 0;
    const run = await runStampd(["stamp", "--wait", "confirmed", "--out", `${file}.stampd.json`, file], {
      env: { STAMPD_URL: svc.baseUrl },
    });
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(readFileSync(`${file}.stampd.json`, "utf8")).stamp.status).toBe("confirmed");
    const answered = received.filter((r) => !r.endsWith(" 429"));
    // The stamp is read once (after its event), the rest of the bundle once each: 7 requests in
    // all, where the flow sent 10 before (the stamp read 4 times).
    expect(answered.map((r) => r.replace(/stp_\w+/, "{id}"))).toEqual([
      "POST /stamps 201",
      "UPGRADE /ws",
      "GET /stamps/{id} 200",
      "GET /stamps/{id}/proof 200",
      "GET /log 200",
      "GET /stamps/{id}/timestamp.tsr 200",
      "GET /tsa/ca.pem 200",
    ]);
    // 9.2 tokens against a burst of 5: some requests wait, and each wait is said, never silent.
    const refused = received.filter((r) => r.endsWith(" 429")).length;
    expect(refused).toBeGreaterThan(0);
    expect(waitLines(run.err)).toHaveLength(refused);
    expect(waitLines(run.err)[0]).toMatch(
      /^stampd: rate limited \(anonymous tier\): waiting \d+ s; a key raises the limit/,
    );
  });
});

describe("stampd stamp --hash-only under the bulk items budget", { timeout: TIMEOUT }, () => {
  function hashFiles(count: number, tag: string): string[] {
    const folder = mkdtempSync(join(dir, `${tag}-`));
    return Array.from({ length: count }, (_, i) => {
      const file = join(folder, `${i}.txt`);
      writeFileSync(file, `${tag} ${i}`);
      return file;
    });
  }

  it("an authenticated key stamps 10 000 hashes, none refused", async () => {
    const { key } = await issueKey(svc);
    const files = hashFiles(10_000, "archive");
    const args = ["stamp", "--hash-only", "--json", "--grpc-url", svc.grpcUrl, ...files];
    const run = await runStampd(args, { env: { STAMPD_URL: svc.baseUrl, STAMPD_API_KEY: key } });
    expect(run.code, run.err).toBe(0);
    const response = JSON.parse(run.out);
    expect({ made: response.successCount, failed: response.failedCount ?? 0 }).toEqual({
      made: 10_000,
      failed: 0,
    });
    expect(new Set(response.stamps.map((s: { id: string }) => s.id)).size).toBe(10_000);
    // Ten 1,000-item calls may outrun the tier's request burst on a fast machine: a short wait
    // for it is printed, and nothing else is.
    const lines = run.err.split("\n").filter(Boolean);
    expect(lines).toEqual(waitLines(run.err));
  });

  it("an anonymous caller's 70 hashes: batches cut to its 60 items, the rest after the wait it is told", async () => {
    const files = hashFiles(70, "anonymous");
    const args = ["stamp", "--hash-only", "--json", "--grpc-url", svc.grpcUrl, ...files];
    const run = await runStampd(args, { env: { STAMPD_URL: svc.baseUrl } });
    expect(run.code, run.err).toBe(0);
    expect(JSON.parse(run.out).successCount).toBe(70);
    expect(waitLines(run.err).length).toBeGreaterThan(0);
    expect(waitLines(run.err)[0]).toMatch(/^stampd: rate limited \(anonymous tier\): waiting \d+ s/);
  });
});

describe("the gRPC address", () => {
  it.each([
    ["http://127.0.0.1:8080", "http://127.0.0.1:50051"],
    ["https://stampd.example.com", "https://stampd.example.com:50051"],
    ["http://localhost:8080/api/", "http://localhost:50051"],
  ])("of %s is %s", (url, grpc) => {
    expect(grpcUrlOf(url)).toBe(grpc);
  });
});
