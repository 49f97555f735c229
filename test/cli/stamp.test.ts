import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { issueKey } from "../helpers/keys.js";
import { type RunningService, startService } from "../helpers/service.js";
import { createIdentity, type StampResponse, sha3 } from "../stamps/helpers.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

let svc: RunningService;
let key: string;
let dir: string;
const path = (name: string) => join(dir, name);
const texts = { "a.txt": "first contract", "b.txt": "second contract", "c.txt": "third contract" };

beforeAll(async () => {
  svc = await startService({ RATE_LIMIT_ENABLED: "false" });
  key = (await issueKey(svc)).key;
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-stamp-"));
  for (const [name, text] of Object.entries(texts)) writeFileSync(path(name), text);
  writeFileSync(path("big.bin"), randomBytes(8 * 1024 * 1024));
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

async function stored(stampId: string): Promise<StampResponse> {
  const res = await fetch(`${svc.baseUrl}/stamps/${stampId}`);
  expect(res.status).toBe(200);
  return res.json();
}

describe("stampd stamp", { timeout: SPAWNS_TIMEOUT }, () => {
  it("uploads a file and prints one line: file, stamp id, status, trust, verify page", async () => {
    const { code, out, err } = await runStampd(["stamp", path("a.txt"), "--preset", "casual"], {
      env: { STAMPD_URL: svc.baseUrl },
    });
    expect({ code, err }).toEqual({ code: 0, err: "" });
    // A fresh stamp's trust is not met yet (issue #22: only evidence counts), so "(not met)" follows it.
    const [file, stampId, status, trust, score, ...rest] = out.trim().split(/\s+/);
    expect([file, status, trust, score, rest.slice(0, -1).join(" ")]).toEqual([
      path("a.txt"),
      "pending",
      "trust",
      "1/2",
      "(not met)",
    ]);
    const verifyUrl = rest.at(-1);
    const stamp = await stored(stampId!);
    expect(stamp.document_hash).toBe(sha3(texts["a.txt"]));
    expect(stamp.stamp_json.preset).toBe("casual");
    expect(verifyUrl).toBe(stamp.verify_url);
  });

  it("names a requested anchor this deployment cannot provide on the stamp's line", async () => {
    // No TSA_URL here: the rfc3161 anchor is unavailable and will never count toward the score.
    const { code, out } = await runStampd(["stamp", path("b.txt"), "--anchors", "log,rfc3161"], {
      env: { STAMPD_URL: svc.baseUrl },
    });
    expect(code).toBe(0);
    expect(out).toMatch(/trust 1\/5 \(not met, rfc3161 unavailable\)/);
  });

  it("--json prints the API's StampResponse and nothing else; the fields reach the server", async () => {
    const args = ["stamp", path("a.txt"), "--json", "--anchors", "log", "--trust-threshold", "9"];
    const { code, out } = await runStampd([...args, "--doc-version", "2.1", ...serverArgs(svc)]);
    expect(code).toBe(0);
    const printed = JSON.parse(out) as StampResponse;
    expect(printed).toEqual(await stored(printed.stamp_id));
    expect(printed.anchors_requested).toEqual(["log"]);
    expect(printed.trust_threshold).toBe(9);
    expect(printed.stamp_json.document.version).toBe("2.1");
  });

  it("signs with --identity and fingerprints with --generate-fp", async () => {
    const identity = await createIdentity(svc, key);
    const args = ["stamp", path("b.txt"), "--identity", identity, "--generate-fp", "--json"];
    const { code, out } = await runStampd([...args, ...serverArgs(svc, key)]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ is_signed: true, has_fingerprint: true });
  });

  it("stamps several files in order, saves each with --out, and `stampd verify` checks them offline", async () => {
    const files = [path("a.txt"), path("b.txt")];
    const out = path("saved");
    const run = await runStampd(["stamp", ...files, "--out", out, "--json", ...serverArgs(svc)]);
    expect(run.code).toBe(0);
    const printed = JSON.parse(run.out) as StampResponse[];
    expect(printed.map((s) => s.document_hash)).toEqual([sha3(texts["a.txt"]), sha3(texts["b.txt"])]);
    const saved = JSON.parse(readFileSync(join(out, "b.txt.stampd.json"), "utf8"));
    expect(saved).toMatchObject({ format: "stampd.bundle/v1", stamp: printed[1], proof: null });
    // Offline with no key pinned, the signer is unknown: exit 3 (issue #35).
    const good = await runStampd(["verify", join(out, "a.txt.stampd.json"), path("a.txt")]);
    expect(good.code).toBe(3);
    expect(good.out).toContain("signature valid, signer unknown");
    const swapped = await runStampd(["verify", join(out, "a.txt.stampd.json"), path("b.txt")]);
    expect(swapped.code).toBe(1);
  });

  it("--progress draws upload progress on stderr while stdout keeps only the result", async () => {
    const { code, out, err } = await runStampd(["stamp", path("big.bin"), "--progress", ...serverArgs(svc)]);
    expect(code).toBe(0);
    expect(out.trim().split("\n")).toHaveLength(1);
    expect(out).toMatch(/^\S+big\.bin\s+stp_/);
    expect(err).toContain("100% | 8.0 MiB/8.0 MiB");
    expect(err).toContain("big.bin (1/1)");
  });

  it("never draws progress with --json, even with --progress", async () => {
    const { code, out, err } = await runStampd([
      "stamp",
      path("big.bin"),
      "--progress",
      "--json",
      ...serverArgs(svc),
    ]);
    expect(code).toBe(0);
    expect(err).toBe("");
    const { document_hash } = JSON.parse(out) as StampResponse;
    expect(document_hash).toBe(
      createHash("sha3-256")
        .update(readFileSync(path("big.bin")))
        .digest("hex"),
    );
  });
});

describe("stampd stamp --hash-only", { timeout: SPAWNS_TIMEOUT }, () => {
  it("hashes here and stamps through gRPC BatchStamp, --batch-size at a time, printing one merged response", async () => {
    const files = Object.keys(texts).map(path);
    const args = ["stamp", "--hash-only", ...files, "--batch-size", "2", "--metadata", "project=alpha"];
    const { code, out } = await runStampd([...args, "--json", "--grpc-url", svc.grpcUrl, ...serverArgs(svc)]);
    expect(code).toBe(0);
    const response = JSON.parse(out);
    expect(response.successCount).toBe(3);
    expect(response.stamps.map((s: { contentHash: string }) => s.contentHash)).toEqual(
      Object.values(texts).map((text) => `sha3-256:${sha3(text)}`),
    );
    expect(response.stamps[0].metadata).toEqual({ project: "alpha" });
    for (const [i, stamp] of response.stamps.entries()) {
      expect((await stored(stamp.id)).document_hash).toBe(sha3(Object.values(texts)[i]!));
    }
  });

  it("--out saves the proof bundle of each, which verifies offline; --progress covers hashing and stamping", async () => {
    const out = path("hash-only");
    const args = ["stamp", "--hash-only", path("big.bin"), path("c.txt"), "--out", out, "--progress"];
    const run = await runStampd([
      ...args,
      "--algorithm",
      "sha256",
      "--grpc-url",
      svc.grpcUrl,
      ...serverArgs(svc),
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/c\.txt\s+stp_\S+\s+pending\s+sha256:/);
    expect(run.err).toContain("hashing");
    expect(run.err).toContain("100% | 2/2 | stamping");
    const check = await runStampd(["verify", "--json", join(out, "big.bin.stampd.json"), path("big.bin")]);
    expect(check.code).toBe(3); // valid, signer unknown: no key pinned
    expect(JSON.parse(check.out).verification.details.content_hash).toBe("match");
  });

  it("refuses upload-only options: a usage error, exit 2", async () => {
    const run = await runStampd([
      "stamp",
      "--hash-only",
      "--preset",
      "casual",
      path("a.txt"),
      ...serverArgs(svc),
    ]);
    expect(run.code).toBe(2);
    expect(run.err).toBe("stampd: --hash-only stamps through gRPC, which takes no --preset\n");
    const other = await runStampd(["stamp", "--metadata", "a=b", path("a.txt"), ...serverArgs(svc)]);
    expect(other.code).toBe(2);
  });

  it("reports a gRPC error as one line with its code, exit 1", async () => {
    const bad = `svc_live_${"A".repeat(43)}`;
    const args = ["stamp", "--hash-only", path("a.txt"), "--grpc-url", svc.grpcUrl, ...serverArgs(svc, bad)];
    const { code, out, err } = await runStampd(args);
    expect({ code, out }).toEqual({ code: 1, out: "" });
    expect(err).toMatch(/^stampd: .+ \(unauthenticated, gRPC 16\)\n$/);
  });
});

describe("stampd errors and exit codes", { timeout: SPAWNS_TIMEOUT }, () => {
  it("an API error is one line `stampd: <detail> (<code>, HTTP <status>)`, exit 1, nothing on stdout", async () => {
    const bad = `svc_live_${"A".repeat(43)}`;
    const { code, out, err } = await runStampd(["stamp", path("a.txt"), "--json", ...serverArgs(svc, bad)]);
    expect({ code, out }).toEqual({ code: 1, out: "" });
    expect(err).toMatch(/^stampd: [^\n]+ \(invalid_api_key, HTTP 401\)\n$/);
    expect(err).not.toContain(bad);
  });

  it("a file that cannot be read is a usage error (exit 2) and nothing is stamped", async () => {
    const created = async () => (await (await fetch(`${svc.baseUrl}/dashboard/stats`)).json()).stamps.created;
    const before = await created();
    const run = await runStampd(["stamp", path("a.txt"), path("missing.txt"), ...serverArgs(svc)]);
    expect(run).toEqual({
      code: 2,
      out: "",
      err: `stampd: cannot read ${path("missing.txt")}: no such file\n`,
    });
    expect(await created()).toBe(before);
  });

  it("bad options are usage errors (exit 2); an unreachable server is a failure (exit 1)", async () => {
    expect((await runStampd(["stamp", path("a.txt"), "--preset", "nope"])).code).toBe(2);
    expect((await runStampd(["stamp", path("a.txt"), "--anchors", "log,carrier-pigeon"])).code).toBe(2);
    expect((await runStampd(["stamp"])).code).toBe(2);
    const closed = await startService();
    const url = closed.baseUrl;
    await closed.close();
    const down = await runStampd(["stamp", path("a.txt"), "--url", url]);
    expect(down.code).toBe(1);
    // Each retry's wait is said (issue #36), then the failure.
    expect(down.err).toMatch(
      /^(stampd: cannot reach the server: retrying in \d+ s\n){2}stampd: cannot reach the server: .*ECONNREFUSED.* \(connection_error\)\n$/,
    );
  });

  it("--help says what the command does", async () => {
    const { code, out } = await runStampd(["stamp", "--help"]);
    expect(code).toBe(0);
    expect(out).toContain("Usage: stampd stamp [options] <file...>");
    expect(out).toContain("--hash-only");
    expect(out).toContain("env: STAMPD_URL");
  });
});
