import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  createClient,
  fetchProofBundle,
  type ProofBundle,
  ProofBundleError,
  parseProofBundle,
  type StampdClient,
  TimestampTokenError,
  verifyProofBundle,
  verifyTimestampToken,
} from "../../sdk/src/index.js";
import { ManualClock } from "../../server/clock.js";
import { type RunningService, startService } from "../helpers/service.js";
import { stampHash } from "../proofs/helpers.js";
import { createStamp } from "../stamps/helpers.js";

// The SDK's bundle functions against a real service whose batches are sealed when the test ticks
// (its clock starts now, so the TSA certificate, made now, is valid at the token's time).
let svc: RunningService;
let client: StampdClient;
let dir: string; // for openssl's own verdict on the same token
const tick = () => svc.service.proofs.pipeline.tick();
const text = "a contract kept for years";
const document = new TextEncoder().encode(text);
// Every bundle the SDK writes is a valid `ProofBundle` of the spec, pending or upgraded.
type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ("default" in addFormatsModule
  ? addFormatsModule.default
  : addFormatsModule) as unknown as FormatsPlugin;
const spec = parse(readFileSync(new URL("../../specs/openapi.yaml", import.meta.url), "utf8"));
const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
addFormats(ajv);
ajv.addSchema({ $id: "spec", components: spec.components });
const isProofBundle = ajv.compile({ $ref: "spec#/components/schemas/ProofBundle" });
const statuses = (pieces: { name: string; status: string }[]) =>
  Object.fromEntries(pieces.map((p) => [p.name, p.status]));

beforeAll(async () => {
  svc = await startService(
    { RATE_LIMIT_ENABLED: "false" },
    { clock: new ManualClock(new Date().toISOString()) },
  );
  client = createClient({ baseUrl: svc.baseUrl, maxRetries: 0 });
  dir = mkdtempSync(join(tmpdir(), "stampd-sdk-bundle-"));
});
afterAll(async () => {
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("fetchProofBundle and verifyProofBundle", () => {
  let bundle: ProofBundle;

  it("a pending stamp's bundle holds the stamp only; once sealed, an upgrade adds proof, log and token", async () => {
    const stamp = await createStamp(svc, text);
    const pending = await fetchProofBundle(client, stamp.stamp_id, { serviceUrl: svc.baseUrl });
    expect(pending).toMatchObject({ format: "stampd.bundle/v1", proof: null, log: null, timestamp: null });
    expect(parseProofBundle(JSON.stringify(pending))).toEqual(pending);
    expect(isProofBundle(pending), JSON.stringify(isProofBundle.errors)).toBe(true);
    expect(isProofBundle({ ...pending, timestamp: { token: "x" } })).toBe(false);
    await tick();
    bundle = await fetchProofBundle(client, stamp.stamp_id, { serviceUrl: svc.baseUrl, previous: pending });
    expect(bundle.proof?.log?.tree_size).toBe(1);
    expect(isProofBundle(bundle), JSON.stringify(isProofBundle.errors)).toBe(true);
    const check = await verifyProofBundle(bundle, { document });
    expect(check.valid).toBe(true);
    expect(statuses(check.pieces)).toMatchObject({
      document: "valid",
      "batch proof": "valid",
      "log inclusion": "valid",
      "log consistency": "absent",
      "rfc3161 timestamp": "valid",
    });
  });

  it("openssl ts -verify agrees with verifyTimestampToken on the bundle's token", async () => {
    const { token, ca_pem } = bundle.timestamp!;
    const [tokenFile, caFile] = [join(dir, "bundle.tsr"), join(dir, "bundle-ca.pem")];
    writeFileSync(tokenFile, Buffer.from(token, "base64"));
    writeFileSync(caFile, ca_pem);
    const { document: doc } = bundle.stamp.stamp_json;
    const out = execFileSync(
      "openssl",
      ["ts", "-verify", "-digest", doc.hash, "-in", tokenFile, "-CAfile", caFile],
      {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"], // openssl names its configuration file on stderr
      },
    );
    expect(out).toContain("Verification: OK");
    const verified = await verifyTimestampToken(
      Buffer.from(token, "base64"),
      doc.algorithm,
      doc.hash,
      ca_pem,
    );
    expect(verified.genTime.toISOString()).toBe(bundle.stamp.created_at);
    await expect(
      verifyTimestampToken(Buffer.from(token, "base64"), doc.algorithm, "0".repeat(64), ca_pem),
    ).rejects.toThrow(TimestampTokenError);
  });

  it("names the part that does not hold: a proof of another leaf, a document that is not the stamped one", async () => {
    const moved = { ...bundle, proof: { ...bundle.proof!, leaf_index: bundle.proof!.leaf_index + 1 } };
    const check = await verifyProofBundle(moved, { document });
    expect(check.valid).toBe(false);
    expect(statuses(check.pieces)["batch proof"]).toBe("invalid");
    const other = await verifyProofBundle(bundle, { document: new TextEncoder().encode("another text") });
    expect(statuses(other.pieces).document).toBe("invalid");
    expect(other.valid).toBe(false);
  });

  it("an upgrade keeps the log's history: a larger checkpoint comes with a verified consistency proof", async () => {
    await stampHash(svc, ["log"]);
    await tick();
    const newer = await fetchProofBundle(client, bundle.stamp.stamp_id, {
      serviceUrl: svc.baseUrl,
      previous: bundle,
    });
    expect(newer.log).toMatchObject({
      previous_checkpoint: bundle.proof!.log!.checkpoint,
      consistency: { first: 1, second: 2 },
    });
    expect(statuses((await verifyProofBundle(newer, { document })).pieces)["log consistency"]).toBe("valid");
    expect(isProofBundle(newer), JSON.stringify(isProofBundle.errors)).toBe(true);
  });

  it("refuses to upgrade a bundle with another stamp document, and to read an unknown format", async () => {
    const forged = {
      ...bundle,
      stamp: { ...bundle.stamp, stamp_json: { ...bundle.stamp.stamp_json, trust_threshold: 0 } },
    };
    await expect(
      fetchProofBundle(client, bundle.stamp.stamp_id, { serviceUrl: svc.baseUrl, previous: forged }),
    ).rejects.toThrow(ProofBundleError);
    expect(() => parseProofBundle(JSON.stringify({ ...bundle, format: "stampd.bundle/v9" }))).toThrow(
      /unknown bundle format/,
    );
  });
});
