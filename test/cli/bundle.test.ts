import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import { ManualClock } from "../../server/clock.js";
import { OpensslTsa } from "../anchors/openssl-tsa.js";
import { type RunningService, startService } from "../helpers/service.js";
import { stampHash } from "../proofs/helpers.js";
import { sha3 } from "../stamps/helpers.js";
import { runStampd, SPAWNS_TIMEOUT, serverArgs } from "./run-stampd.js";

type Schemas = components["schemas"];
type Piece = { name: string; status: string; detail: string };

// The real server (batches sealed every second), a real `openssl ts` TSA, and the CLI as a user
// runs it. The last test stops the server: what it verifies, it verifies with no network.
let tsa: OpensslTsa;
let svc: RunningService;
let dir: string;
const path = (name: string) => join(dir, name);
const bundleOf = (name: string): Schemas["ProofBundle"] => JSON.parse(readFileSync(path(name), "utf8"));
const statusOf = (pieces: Piece[]) => Object.fromEntries(pieces.map((p) => [p.name, p.status]));

beforeAll(async () => {
  tsa = await new OpensslTsa().start();
  svc = await startService({
    RATE_LIMIT_ENABLED: "false",
    BATCH_INTERVAL_MS: "500",
    TSA_URL: tsa.url,
    TSA_CA_FILE: tsa.caFile,
  });
  dir = mkdtempSync(join(tmpdir(), "stampd-cli-bundle-"));
  writeFileSync(path("contract.txt"), "the signed contract");
  writeFileSync(path("later.txt"), "a later document");
  writeFileSync(path("other.txt"), "not the contract");
  writeFileSync(path("deed.txt"), "a deed anchored by the outside TSA");
});
afterAll(async () => {
  await svc?.close();
  await tsa?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("proof bundles and the log from the CLI", { timeout: SPAWNS_TIMEOUT }, () => {
  let stampId: string;

  it("stamp --wait anchored --out FILE waits for the openssl TSA and saves the whole proof", async () => {
    const args = ["stamp", path("contract.txt"), "--anchors", "log,rfc3161", "--wait", "anchored"];
    const run = await runStampd([
      ...args,
      "--out",
      path("contract.stampd.json"),
      "--json",
      ...serverArgs(svc),
    ]);
    expect(run).toMatchObject({ code: 0, err: "" });
    const stamp = JSON.parse(run.out) as Schemas["StampResponse"];
    stampId = stamp.stamp_id;
    expect(stamp.status).toBe("anchored");
    expect(stamp.anchors.map((a) => [a.type, a.status])).toEqual([
      ["log", "confirmed"],
      ["rfc3161", "confirmed"],
    ]);
    const bundle = bundleOf("contract.stampd.json");
    expect(bundle).toMatchObject({ format: "stampd.bundle/v1", service_url: svc.baseUrl });
    expect(bundle.stamp.stamp_json.document.hash).toBe(sha3("the signed contract"));
    expect(bundle.proof?.stamp_id).toBe(stampId);
    expect(bundle.proof?.log).not.toBeNull();
    expect(bundle.log?.verifier_key).toBe((await (await fetch(`${svc.baseUrl}/log`)).json()).verifier_key);
    expect(bundle.timestamp?.ca_pem).toContain("BEGIN CERTIFICATE");
  });

  it("stamp --out, then upgrade --wait anchored adds the outside TSA's anchor token; info describes it", async () => {
    const bundleFile = path("deed.stampd.json");
    const stamp = ["stamp", path("deed.txt"), "--anchors", "log,rfc3161", "--out", bundleFile];
    expect((await runStampd([...stamp, ...serverArgs(svc)])).code).toBe(0);
    const before = await runStampd(["info", bundleFile]);
    expect(before.out).toMatch(/rfc3161\s+no token held \(run `stampd upgrade` once the anchor confirmed\)/);

    const upgrade = await runStampd(["upgrade", bundleFile, "--wait", "anchored", "--json"]);
    expect(upgrade.code).toBe(0);
    expect(JSON.parse(upgrade.out)).toMatchObject({ status: "anchored" });
    expect(JSON.parse(upgrade.out).changes).toContain("rfc3161 anchor token added");
    const anchor = bundleOf("deed.stampd.json").proof!.anchors.find((a) => a.type === "rfc3161")!;
    expect(anchor).toMatchObject({ status: "confirmed", evidence: expect.stringMatching(/^MII/) });

    const info = await runStampd(["info", bundleFile, "--json"]);
    const tokenTime = JSON.parse(info.out).anchor_token.gen_time;
    expect(tokenTime).toBe(anchor.confirmed_at);
    const human = await runStampd(["info", bundleFile]);
    expect(human.out).toContain(
      `rfc3161      token of the outside TSA over the batch root, time ${tokenTime}`,
    );
  });

  it("get shows the stamp's status and anchors; --json is the API's StampResponse", async () => {
    const human = await runStampd(["get", stampId, ...serverArgs(svc)]);
    expect(human.code).toBe(0);
    expect(human.out).toContain(`stamp ${stampId}: anchored`);
    expect(human.out).toMatch(/anchor\s+rfc3161 confirmed/);
    const json = await runStampd(["get", stampId, "--json", ...serverArgs(svc)]);
    expect(JSON.parse(json.out)).toEqual(await (await fetch(`${svc.baseUrl}/stamps/${stampId}`)).json());
    const missing = await runStampd(["get", "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D", ...serverArgs(svc)]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("HTTP 404");
  });

  it("verify --online checks the bundle here, then asks the server named by --url, with the document", async () => {
    const online = ["verify", path("contract.stampd.json"), "--online", ...serverArgs(svc)];
    const good = await runStampd([...online, path("contract.txt")]);
    expect(good.code).toBe(0);
    expect(good.out).toContain(`stamp ${stampId}: VALID (online, ${svc.baseUrl}:`);
    expect(good.out).toMatch(/content hash\s+match/);
    const bad = await runStampd([...online, path("other.txt"), "--json"]);
    expect(bad.code).toBe(1);
    const check = JSON.parse(bad.out);
    expect(statusOf(check.local.pieces).document).toBe("invalid");
    expect(check.service.details.content_hash).toBe("mismatch");
  });

  it("log checkpoint, inclusion and consistency verify what they fetch", async () => {
    const log = (await (await fetch(`${svc.baseUrl}/log`)).json()) as Schemas["LogInfo"];
    const checkpoint = await runStampd([
      "log",
      "checkpoint",
      "--log-key",
      log.verifier_key,
      "--json",
      ...serverArgs(svc),
    ]);
    expect(checkpoint.code).toBe(0);
    expect(JSON.parse(checkpoint.out)).toMatchObject({
      tree_size: log.tree_size,
      root_hash: log.root_hash,
      signature: "valid",
    });

    const { index } = bundleOf("contract.stampd.json").proof!.log!;
    const inclusion = await runStampd(["log", "inclusion", String(index), ...serverArgs(svc)]);
    expect(inclusion.code).toBe(0);
    expect(inclusion.out).toContain(`entry ${index} (batch`);
    expect(inclusion.out).toContain("verified");
    const older = await runStampd([
      "log",
      "inclusion",
      String(index),
      "--tree-size",
      String(index + 1),
      "--json",
      ...serverArgs(svc),
    ]);
    expect(JSON.parse(older.out)).toMatchObject({ index, tree_size: index + 1, verified: true });

    // A checkpoint kept now, then the log grows by a batch: the new log must extend the kept one.
    const kept = await (await fetch(`${svc.baseUrl}/log/checkpoint`)).text();
    writeFileSync(path("old.checkpoint"), kept);
    const keptSize = Number(kept.split("\n")[1]);
    const grow = await runStampd(["stamp", path("later.txt"), "--wait", ...serverArgs(svc)]);
    expect(grow.code).toBe(0);
    const consistency = ["log", "consistency", String(keptSize), "--checkpoint", path("old.checkpoint")];
    const consistent = await runStampd([...consistency, ...serverArgs(svc)]);
    expect(consistent.code).toBe(0);
    expect(consistent.out).toContain(`extends the log of ${keptSize}`);
    expect(consistent.out).toContain("matches");
    const notKept = await runStampd([
      "log",
      "consistency",
      String(keptSize - 1),
      "--checkpoint",
      path("old.checkpoint"),
      ...serverArgs(svc),
    ]);
    expect(notKept.code).toBe(1);
    expect(notKept.err).toContain("is not the tree of");

    const wrongKey = log.verifier_key.replace(/\+[0-9a-f]{8}\+/, "+00000000+");
    const refused = await runStampd(["log", "checkpoint", "--log-key", wrongKey, ...serverArgs(svc)]);
    expect(refused.code).not.toBe(0);
  });

  it("verify --offline checks every part with the server stopped, and names what is wrong", async () => {
    await svc.close();
    const run = await runStampd([
      "verify",
      path("contract.stampd.json"),
      path("contract.txt"),
      "--offline",
      "--json",
    ]);
    expect(run.code).toBe(3); // every part holds, but no key is pinned: signer unknown
    const check = JSON.parse(run.out) as { valid: boolean; pieces: Piece[] };
    expect(check.valid).toBe(true);
    expect(statusOf(check.pieces)).toEqual({
      document: "valid",
      "stamp format": "valid",
      "service signature": "valid",
      "author signature": "absent",
      "batch proof": "valid",
      "log inclusion": "valid",
      "log consistency": "absent",
      "rfc3161 timestamp": "valid",
      "anchor log": "valid",
      "anchor rfc3161": "valid",
    });
    const human = await runStampd(["verify", path("contract.stampd.json"), path("contract.txt")]);
    expect(human.out).toContain(`stamp ${stampId}: signature valid, signer unknown (offline`);
    expect(human.out).toMatch(/rfc3161 timestamp\s+valid/);

    const other = await runStampd(["verify", path("contract.stampd.json"), path("other.txt"), "--json"]);
    expect(other.code).toBe(1);
    expect(statusOf(JSON.parse(other.out).pieces).document).toBe("invalid");

    // A token whose last signature byte is flipped; a log key that is not the bundle's.
    const bundle = bundleOf("contract.stampd.json");
    const token = Buffer.from(bundle.timestamp!.token, "base64");
    token[token.length - 1]! ^= 1;
    writeFileSync(
      path("tampered.stampd.json"),
      JSON.stringify({ ...bundle, timestamp: { ...bundle.timestamp, token: token.toString("base64") } }),
    );
    const tampered = await runStampd([
      "verify",
      path("tampered.stampd.json"),
      path("contract.txt"),
      "--json",
    ]);
    expect(tampered.code).toBe(1);
    expect(statusOf(JSON.parse(tampered.out).pieces)["rfc3161 timestamp"]).toBe("invalid");
    const foreignCa = await runStampd([
      "verify",
      path("contract.stampd.json"),
      path("contract.txt"),
      "--tsa-ca",
      tsa.caFile,
      "--json",
    ]);
    expect(statusOf(JSON.parse(foreignCa.out).pieces)["rfc3161 timestamp"]).toBe("invalid");
    const otherKey = `stampd.example/log+${"0".repeat(8)}+${Buffer.alloc(33, 1).toString("base64")}`;
    const pinned = await runStampd([
      "verify",
      path("contract.stampd.json"),
      path("contract.txt"),
      "--log-key",
      otherKey,
      "--json",
    ]);
    expect(pinned.code).toBe(1);
    expect(statusOf(JSON.parse(pinned.out).pieces)["log inclusion"]).toBe("invalid");
  });

  // The server was stopped by the test above: the upgraded bundle verifies with no network.
  it("verify --offline proves the rfc3161 anchor by its TSA token, pinned or not, and names a forged one", async () => {
    const verify = async (file: string, ...flags: string[]) => {
      const run = await runStampd(["verify", path(file), path("deed.txt"), "--offline", "--json", ...flags]);
      const check = JSON.parse(run.out) as { valid: boolean; pieces: Piece[] };
      return { code: run.code, piece: check.pieces.find((p) => p.name === "anchor rfc3161")! };
    };
    const unpinned = await verify("deed.stampd.json");
    expect(unpinned.code).toBe(3);
    expect(unpinned.piece).toMatchObject({
      status: "valid",
      detail: expect.stringContaining("issuer not checked"),
    });
    const pinned = await verify("deed.stampd.json", "--anchor-tsa-ca", tsa.caFile);
    expect(pinned.piece).toMatchObject({
      status: "valid",
      detail: expect.stringContaining("certified by a pinned CA"),
    });
    const human = await runStampd(["verify", path("deed.stampd.json"), path("deed.txt")]);
    expect(human.out).toMatch(/anchor rfc3161\s+valid\s+the batch root time-stamped at \S+ by Test TSA/);

    // The service's own TSA CA did not certify the outside TSA.
    const serviceCa = path("service-ca.pem");
    writeFileSync(serviceCa, bundleOf("deed.stampd.json").timestamp!.ca_pem);
    const stranger = await verify("deed.stampd.json", "--anchor-tsa-ca", serviceCa);
    expect(stranger.code).toBe(1);
    expect(stranger.piece).toMatchObject({
      status: "invalid",
      detail: expect.stringContaining("not issued by the trusted CA"),
    });

    // A token with its last signature byte flipped, as is and with the reference forged to match.
    const bundle = bundleOf("deed.stampd.json");
    const forge = (fixReference: boolean) => {
      const anchors = bundle.proof!.anchors.map((a) => {
        if (a.type !== "rfc3161") return a;
        const token = Buffer.from(a.evidence!, "base64");
        token[token.length - 1]! ^= 1;
        const reference = fixReference ? createHash("sha256").update(token).digest("hex") : a.reference;
        return { ...a, evidence: token.toString("base64"), reference };
      });
      return JSON.stringify({ ...bundle, proof: { ...bundle.proof, anchors } });
    };
    writeFileSync(path("forged-token.stampd.json"), forge(false));
    writeFileSync(path("forged-reference.stampd.json"), forge(true));
    const changed = await verify("forged-token.stampd.json");
    expect(changed.code).toBe(1);
    expect(changed.piece.status).toBe("invalid");
    expect(changed.piece.detail).toBe(
      "its TSA token: the token is not the one the anchor's reference (its SHA-256) names",
    );
    const resigned = await verify("forged-reference.stampd.json");
    expect(resigned.code).toBe(1);
    expect(resigned.piece.detail).toMatch(/^its TSA token: .*signature does not verify/);
  });
});

// A service whose batches are sealed only when the test says so (tick): the stamp is surely still
// pending when first saved, and the log grows exactly when the test grows it. Its clock starts
// now: the RFC 3161 token's time must fall within its TSA certificate's validity, made now.
describe("upgrade of a pending bundle, then verify --offline with the server gone", {
  timeout: SPAWNS_TIMEOUT,
}, () => {
  let manual: { svc: RunningService; tick: () => Promise<unknown> };
  const file = () => path("saved/later.txt.stampd.json");
  beforeAll(async () => {
    const clock = new ManualClock(new Date().toISOString());
    const svc = await startService({ RATE_LIMIT_ENABLED: "false" }, { clock });
    manual = { svc, tick: () => svc.service.proofs.pipeline.tick() };
  });
  afterAll(async () => {
    await manual?.svc.close();
  });

  it("stamp --out DIR saves a pending bundle; info says what it lacks", async () => {
    const run = await runStampd([
      "stamp",
      path("later.txt"),
      "--out",
      path("saved"),
      ...serverArgs(manual.svc),
    ]);
    expect(run.code).toBe(0);
    const bundle = bundleOf("saved/later.txt.stampd.json");
    expect(bundle.stamp.status).toBe("pending");
    expect([bundle.proof, bundle.log, bundle.timestamp]).toEqual([null, null, null]);
    const info = await runStampd(["info", file()]);
    expect(info.code).toBe(0);
    expect(info.out).toContain(`stamp ${bundle.stamp.stamp_id}: pending`);
    expect(info.out).toMatch(/batch proof\s+absent \(run `stampd upgrade`\)/);
    const offline = await runStampd(["verify", file(), path("later.txt"), "--json"]);
    expect(offline.code).toBe(3);
    expect(statusOf(JSON.parse(offline.out).pieces)).toMatchObject({
      document: "valid",
      "batch proof": "absent",
      "log inclusion": "absent",
      "rfc3161 timestamp": "absent",
    });
  });

  it("stamp --wait gives up after --timeout seconds with the stamp's status, exit 1", async () => {
    const run = await runStampd([
      "stamp",
      path("other.txt"),
      "--wait",
      "--timeout",
      "2",
      ...serverArgs(manual.svc),
    ]);
    expect(run.code).toBe(1);
    expect(run.err).toMatch(
      /^stampd: stp_\S+ did not become confirmed in time \(it is pending\) \(timeout\)\n$/,
    );
  });

  it("upgrade brings the proof once sealed, then a larger checkpoint with its consistency proof", async () => {
    await manual.tick();
    const first = await runStampd(["upgrade", file()]);
    expect(first.code).toBe(0);
    expect(first.out).toContain("batch proof added");
    expect(first.out).toContain("log inclusion added (checkpoint 1)");
    expect(first.out).toContain("RFC 3161 token added");
    const before = bundleOf("saved/later.txt.stampd.json");
    expect(readdirSync(path("saved"))).toEqual(["later.txt.stampd.json"]); // no temporary file left

    await stampHash(manual.svc, ["log"]);
    await manual.tick();
    const second = await runStampd(["upgrade", file(), "--json"]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.out).changes).toEqual(["checkpoint 1 -> 2 (consistency proven)"]);
    const after = bundleOf("saved/later.txt.stampd.json");
    expect(after.log).toMatchObject({
      previous_checkpoint: before.proof!.log!.checkpoint,
      consistency: { first: 1, second: 2 },
    });
    const info = await runStampd(["info", file(), "--json"]);
    expect(JSON.parse(info.out)).toMatchObject({
      status: after.stamp.status,
      consistency: { first: 1, second: 2 },
      log: { index: 0, tree_size: 2 },
      timestamp: { gen_time: new Date(after.stamp.created_at).toISOString() },
    });
    const nothing = await runStampd(["upgrade", file()]);
    expect(nothing.out).toContain("nothing newer");
  });

  it("verify --offline with the server stopped: every part it holds, the consistency included", async () => {
    await manual.svc.close();
    const run = await runStampd(["verify", file(), path("later.txt"), "--offline", "--json"]);
    expect(run.code).toBe(3);
    const check = JSON.parse(run.out) as { valid: boolean; pieces: Piece[] };
    expect(check.valid).toBe(true);
    expect(statusOf(check.pieces)).toMatchObject({
      document: "valid",
      "service signature": "valid",
      "batch proof": "valid",
      "log inclusion": "valid",
      "log consistency": "valid",
      "rfc3161 timestamp": "valid",
    });
    // A consistency proof with a changed hash no longer leads from one checkpoint to the other.
    const bundle = bundleOf("saved/later.txt.stampd.json");
    const proof = bundle.log!.consistency!.proof.map((h, i) =>
      i === 0 ? `${h[0] === "0" ? "1" : "0"}${h.slice(1)}` : h,
    );
    writeFileSync(
      path("bad-consistency.stampd.json"),
      JSON.stringify({
        ...bundle,
        log: { ...bundle.log, consistency: { ...bundle.log!.consistency, proof } },
      }),
    );
    const bad = await runStampd(["verify", path("bad-consistency.stampd.json"), path("later.txt"), "--json"]);
    expect(bad.code).toBe(1);
    expect(statusOf(JSON.parse(bad.out).pieces)["log consistency"]).toBe("invalid");
  });
});
