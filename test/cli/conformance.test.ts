// `stampd conformance` run as a user runs it, against (a) a freshly started real server with
// --write, (b) the Prism mock with --mock, (c) a real server behind a proxy that breaks one
// operation's answer, and (d) the files --junit and --json write.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { restCases } from "../../cli/conformance/rest-cases.js";
import { type RunningPrism, startPrism } from "../../scripts/prism.js";
import { listOperations } from "../../server/contract/openapi.js";
import { createLogger } from "../../server/logger.js";
import { devIssuer, devIssuerKeyPath } from "../../server/vault/fees/dev-issuer.js";
import { stubCalendar } from "../anchors/stub-calendar.js";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { runStampd } from "./run-stampd.js";

/** A whole run spawns the CLI once, but makes a few hundred requests. */
const RUN_TIMEOUT = 180_000;
/** The server's MAX_UPLOAD_BYTES, given to the kit so that its 413 checks run (and stay cheap). */
const UPLOAD_LIMIT = 1024 * 1024;

let svc: RunningService;
let owner: string;
let other: string;
let dir: string;
let calendar: Awaited<ReturnType<typeof stubCalendar>> | undefined;

beforeAll(async () => {
  // Batches every 50 ms, so the proof checks find a confirmed stamp quickly; a stand-in
  // OpenTimestamps calendar answers at once, so the bitcoin anchor's .ots is there too. Fees other
  // than the defaults and the spec's example: the kit pays what the target's GET /vault/fees asks.
  calendar = await stubCalendar();
  svc = await startService({
    BATCH_INTERVAL_MS: "50",
    OTS_CALENDAR_URLS: calendar.url,
    MAX_UPLOAD_BYTES: String(UPLOAD_LIMIT),
    VAULT_HEARTBEAT_FEE: "2.75",
    VAULT_BATCH_DISCOUNT: "0.20",
  });
  [owner, other] = [
    (await issueKey(svc, { tier: "internal" })).key,
    (await issueKey(svc, { tier: "internal" })).key,
  ];
  // The development fee issuer the server trusts; its key file is what an operator would hand over.
  devIssuer(svc.dataDir, createLogger(svc.config));
  dir = mkdtempSync(join(tmpdir(), "stampd-conformance-"));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await svc?.close();
  await calendar?.close();
});

type Result = { area: string; name: string; outcome: { status: string; reason?: string } };
const summaryLine = (out: string, area: string) =>
  out
    .split("\n")
    .find((l) => l.trim().startsWith(`${area} `))
    ?.trim();

describe("against a freshly started server with --write", () => {
  let run: Awaited<ReturnType<typeof runStampd>>;
  beforeAll(async () => {
    run = await runStampd([
      "conformance",
      ...["--url", svc.baseUrl, "--grpc-url", svc.grpcUrl, "--key", owner, "--other-key", other],
      ...["--fee-issuer-key", devIssuerKeyPath(svc.dataDir), "--write", "--rate", "200"],
      ...["--max-upload-bytes", String(UPLOAD_LIMIT)],
      ...["--junit", join(dir, "real.xml"), "--json", join(dir, "real.json")],
    ]);
  }, RUN_TIMEOUT);

  it("passes every check and exits 0", () => {
    expect({ code: run.code, failures: run.out.split("Failures:")[1] ?? "" }).toEqual({
      code: 0,
      failures: "",
    });
    expect(summaryLine(run.out, "total")).toMatch(/^total\s+\d+ passed, 0 failed, \d+ not run$/);
    const json = JSON.parse(readFileSync(join(dir, "real.json"), "utf8"));
    // Left: the 429 check alone (nothing was throttled, and the kit never provokes one).
    const reasons = new Set(
      json.results.flatMap((r: Result) => (r.outcome.status === "not_run" ? [r.outcome.reason] : [])),
    );
    for (const reason of reasons) expect(reason).toMatch(/^no request was throttled/);
    // Every operation of the spec was called by its recipe and passed, the tiles and key ring too.
    const passed = new Set(
      json.results.flatMap((r: Result) => (r.outcome.status === "passed" ? [r.name] : [])),
    );
    const missing = listOperations()
      .map(({ operationId }) => `${operationId} answers as documented`)
      .filter((name) => !passed.has(name));
    expect(missing).toEqual([]);
  });

  it("has a request recipe for every operation of the spec", () => {
    const without = listOperations()
      .map(({ operationId }) => operationId)
      .filter((id) => !(id in restCases));
    expect(without).toEqual([]);
  });

  it("writes a JUnit file with one testsuite per area and a JSON file with every result", () => {
    const xml = readFileSync(join(dir, "real.xml"), "utf8");
    expect(XMLValidator.validate(xml)).toBe(true);
    const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(xml);
    const suites = parsed.testsuites.testsuite as { name: string; tests: string; testcase: unknown[] }[];
    expect(suites.map((s) => s.name)).toEqual(["rest", "auth", "rate-limit", "grpc", "ws"]);
    const json = JSON.parse(readFileSync(join(dir, "real.json"), "utf8"));
    const { passed, failed, not_run } = json.summary.total;
    expect({ failed, all: passed + not_run }).toEqual({ failed: 0, all: json.results.length });
    expect(Number(parsed.testsuites.tests)).toBe(json.results.length);
    expect(json.results.filter((r: { area: string }) => r.area === "grpc").length).toBeGreaterThan(5);
  });

  it("tagged the vaults it created with the run id", async () => {
    const json = JSON.parse(readFileSync(join(dir, "real.json"), "utf8"));
    const get = async (path: string) =>
      (await fetch(`${svc.baseUrl}${path}`, { headers: { authorization: `Bearer ${owner}` } })).json();
    const { items } = (await get("/vault/list?limit=100")) as { items: { id: string }[] };
    expect(items.length).toBeGreaterThan(0);
    for (const { id } of items)
      expect((await get(`/vault/${id}`)).metadata).toEqual({ conformance: json.runId });
  });
});

describe("against the Prism mock with --mock", () => {
  let prism: RunningPrism | undefined;
  afterAll(() => prism?.stop());

  it(
    "passes each operation's example answer and reports what needs state as not run",
    async () => {
      prism = await startPrism({ mode: "mock" });
      const run = await runStampd([
        "conformance",
        ...["--url", prism.url, "--key", `svc_test_${"A".repeat(43)}`, "--mock", "--write", "--rate", "200"],
        ...["--json", join(dir, "mock.json")],
      ]);
      expect(run.code).toBe(0);
      const json = JSON.parse(readFileSync(join(dir, "mock.json"), "utf8"));
      // Every REST operation's valid call answered as documented; nothing else was tried.
      const valid = json.results.filter((r: Result) => r.name.endsWith("answers as documented"));
      const unknown = valid.filter((r: Result) => r.outcome.status === "not_run");
      expect(json.summary.rest.passed).toBe(valid.length - unknown.length);
      expect(json.summary.rest.passed).toBeGreaterThan(40);
      expect(json.summary.total.failed).toBe(0);
      for (const area of ["grpc", "ws"]) expect(json.summary[area].passed).toBe(0);
      expect(run.out).toContain("--mock: a mock answers from the spec's examples, not from state");
    },
    RUN_TIMEOUT,
  );
});

describe("against a server with one broken answer", () => {
  let proxy: Server;
  beforeAll(async () => {
    proxy = brokenProxy(svc.baseUrl);
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  });
  afterAll(() => new Promise((resolve) => proxy.close(resolve)));

  it(
    "fails exactly that operation's check, with the request, the expected and the actual answer, and exits 1",
    async () => {
      const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      const run = await runStampd([
        "conformance",
        ...["--url", url, "--ws-url", `${svc.baseUrl.replace("http", "ws")}/ws`, "--key", owner],
        ...["--rate", "200", "--json", join(dir, "broken.json")],
      ]);
      expect(run.code).toBe(1);
      const json = JSON.parse(readFileSync(join(dir, "broken.json"), "utf8"));
      const failed = json.results.filter(
        (r: { outcome: { status: string } }) => r.outcome.status === "failed",
      );
      expect(failed.map((r: { name: string }) => r.name)).toEqual(["getPreset answers as documented"]);
      const report = run.out.split("Failures:")[1]!;
      expect(report).toContain("✗ [rest] getPreset answers as documented");
      expect(report).toContain("request:  GET /presets/archival (owner key)");
      expect(report).toContain("expected: an answer specs/openapi.yaml documents for getPreset");
      expect(report).toMatch(
        /actual: {3}200: the 200 body does not match its schema: \/trust_threshold must be integer/,
      );
    },
    RUN_TIMEOUT,
  );
});

describe("usage errors", () => {
  it("exit 2 with a short hint, and nothing is sent", { timeout: 30_000 }, async () => {
    const run = await runStampd(["conformance", "--key", owner]);
    expect(run.code).toBe(2);
    expect(run.err).toContain("--url");
    expect(run.err).toContain("(see stampd conformance --help)");
    const unreadable = await runStampd([
      "conformance",
      "--url",
      svc.baseUrl,
      "--key",
      owner,
      "--fee-issuer-key",
      join(dir, "none.pem"),
    ]);
    expect(unreadable.code).toBe(2);
    expect(unreadable.err).toMatch(/^stampd: --fee-issuer-key .*none\.pem/);
  });
});

/** Forwards to `upstream`, and answers GET /presets/archival with trust_threshold as a string. */
function brokenProxy(upstream: string): Server {
  const target = new URL(upstream);
  return createServer((req, res) => {
    const forward = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on("data", (c: Buffer) => chunks.push(c));
        answer.on("end", () => {
          let body = Buffer.concat(chunks);
          if (req.method === "GET" && req.url === "/presets/archival" && answer.statusCode === 200) {
            const preset = JSON.parse(body.toString("utf8"));
            body = Buffer.from(JSON.stringify({ ...preset, trust_threshold: "eight" }));
          }
          const headers = { ...answer.headers, "content-length": String(body.length) };
          delete headers["transfer-encoding"];
          res.writeHead(answer.statusCode ?? 502, headers).end(body);
        });
      },
    );
    req.pipe(forward);
  });
}
