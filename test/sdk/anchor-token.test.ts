import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { components } from "../../gen/openapi/types.js";
import {
  createClient,
  fetchProofBundle,
  type ProofBundle,
  ProofBundleError,
  readTimestampToken,
  type StampdClient,
  TimestampTokenError,
  verifyProofBundle,
  verifyRfc3161Anchor,
} from "../../sdk/src/index.js";
import { ManualClock } from "../../server/clock.js";
import { OpensslTsa } from "../anchors/openssl-tsa.js";
import { type RunningService, startService } from "../helpers/service.js";
import { getJson, stampHash } from "../proofs/helpers.js";

type StampProof = components["schemas"]["StampProof"];

// The `rfc3161` anchor's token as the SDK checks it offline: a real service whose outside TSA is a
// real `openssl ts`, batches sealed when the test ticks. Its clock starts now, so the token of the
// service's own TSA (genTime: the stamp's time) falls within that TSA's certificate, made now.
let tsa: OpensslTsa;
let svc: RunningService;
let client: StampdClient;
let stampId: string;
let proof: StampProof;
let tsaCaPem: string;

/** The proof with its rfc3161 anchor's token changed by `change` (and, if asked, a matching reference). */
function withToken(change: (token: Buffer) => void, { fixReference = false } = {}): StampProof {
  const anchors = proof.anchors.map((anchor) => {
    if (anchor.type !== "rfc3161") return anchor;
    const token = Buffer.from(anchor.evidence!, "base64");
    change(token);
    const reference = fixReference ? createHash("sha256").update(token).digest("hex") : anchor.reference;
    return { ...anchor, evidence: token.toString("base64"), reference };
  });
  return { ...proof, anchors };
}
const flipLastByte = (token: Buffer) => {
  token[token.length - 1]! ^= 1;
};

beforeAll(async () => {
  tsa = await new OpensslTsa().start();
  svc = await startService(
    { BATCH_INTERVAL_MS: "3600000", RATE_LIMIT_ENABLED: "false", TSA_URL: tsa.url, TSA_CA_FILE: tsa.caFile },
    { clock: new ManualClock(new Date().toISOString()) },
  );
  client = createClient({ baseUrl: svc.baseUrl, maxRetries: 0 });
  tsaCaPem = readFileSync(tsa.caFile, "utf8");
  stampId = (await stampHash(svc, ["log", "rfc3161"])).id;
  await svc.service.proofs.pipeline.tick();
  proof = await getJson<StampProof>(svc, `/stamps/${stampId}/proof`);
});
afterAll(async () => {
  await svc?.close();
  await tsa?.stop();
});

describe("verifyRfc3161Anchor", () => {
  it("verifies the served token over the batch root, its issuer only when given the TSA's CA", async () => {
    const anchor = proof.anchors.find((a) => a.type === "rfc3161")!;
    const pinned = await verifyRfc3161Anchor(proof, { trustedCaPem: tsaCaPem });
    expect(pinned).toMatchObject({ chain: "verified", signer: "Test TSA" });
    expect(pinned.genTime.toISOString()).toBe(anchor.confirmed_at);
    await expect(verifyRfc3161Anchor(proof)).resolves.toMatchObject({ chain: "not_checked" });
    // The bare token (no TimeStampResp around it) reads as the response does.
    expect(readTimestampToken(Buffer.from(anchor.evidence!, "base64")).genTime).toEqual(pinned.genTime);
  });

  it.each([
    ["a changed token", () => withToken(flipLastByte), /reference \(its SHA-256\)/],
    [
      "a changed signature under a matching reference",
      () => withToken(flipLastByte, { fixReference: true }),
      /signature does not verify/,
    ],
    [
      "another batch root",
      () => ({ ...proof, batch: { ...proof.batch, root: "00".repeat(32) } }),
      /time-stamps another hash/,
    ],
    [
      "no token",
      () => ({ ...proof, anchors: proof.anchors.map(({ evidence: _, ...a }) => a) }),
      /holds no token/,
    ],
  ])("refuses %s, saying why", async (_, given, reason) => {
    const failure = verifyRfc3161Anchor(given());
    await expect(failure).rejects.toThrow(TimestampTokenError);
    await expect(failure).rejects.toThrow(reason);
  });

  it("refuses a TSA the given CA did not certify (the service's own TSA CA here)", async () => {
    const serviceCa = await client.log.tsaCertificate();
    await expect(verifyRfc3161Anchor(proof, { trustedCaPem: serviceCa })).rejects.toThrow(
      /not issued by the trusted CA/,
    );
  });
});

describe("the anchor token in proof bundles", () => {
  let bundle: ProofBundle;
  const statusOf = (pieces: { name: string; status: string }[], name: string) =>
    pieces.find((p) => p.name === name)?.status;

  beforeAll(async () => {
    bundle = await fetchProofBundle(client, stampId, { serviceUrl: svc.baseUrl });
  });

  it("a bundle holds it, verifies it and counts the anchor; the result does not repeat the token", async () => {
    expect(bundle.proof?.anchors.find((a) => a.type === "rfc3161")?.evidence).toMatch(/^MII/);
    const check = await verifyProofBundle(bundle, { trustedAnchorTsaCaPem: tsaCaPem });
    expect(check.valid, JSON.stringify(check.pieces)).toBe(true);
    const piece = check.pieces.find((p) => p.name === "anchor rfc3161")!;
    expect(piece.status).toBe("valid");
    expect(piece.detail).toContain("certified by a pinned CA");
    expect(check.verification.details.anchors.every((a) => a.evidence === undefined)).toBe(true);
    const unpinned = await verifyProofBundle(bundle);
    expect(statusOf(unpinned.pieces, "anchor rfc3161")).toBe("valid");
    expect(unpinned.pieces.find((p) => p.name === "anchor rfc3161")!.detail).toContain("issuer not checked");
  });

  it("a tampered token makes the bundle invalid and the anchor count for nothing", async () => {
    const intact = await verifyProofBundle(bundle);
    proof = bundle.proof!;
    const tampered = { ...bundle, proof: withToken(flipLastByte, { fixReference: true }) };
    const check = await verifyProofBundle(tampered);
    expect(check.valid).toBe(false);
    const piece = check.pieces.find((p) => p.name === "anchor rfc3161")!;
    expect(piece).toMatchObject({ status: "invalid" });
    expect(piece.detail).toMatch(/^its TSA token: .*signature does not verify/);
    expect(check.verification.trust_score).toBe(intact.verification.trust_score - 3);
    expect(check.verification.details.anchors.find((a) => a.type === "rfc3161")?.status).toBe("failed");
  });

  it("an upgrade refuses a service whose anchor token does not verify", async () => {
    const forging: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith("/proof")) return res;
      proof = (await res.json()) as StampProof;
      return Response.json(withToken(flipLastByte, { fixReference: true }));
    };
    const lying = createClient({ baseUrl: svc.baseUrl, maxRetries: 0, fetch: forging });
    const upgrade = fetchProofBundle(lying, stampId, { serviceUrl: svc.baseUrl, previous: bundle });
    await expect(upgrade).rejects.toThrow(ProofBundleError);
    await expect(upgrade).rejects.toThrow(/rfc3161 anchor token does not verify/);
  });
});
