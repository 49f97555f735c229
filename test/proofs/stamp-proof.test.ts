import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import { verifyStampProof } from "../../core/stamp-proof.js";
import type { components } from "../../gen/openapi/types.js";
import { getJson, stampHash, startProofService } from "./helpers.js";

type Schemas = components["schemas"];

let running: Awaited<ReturnType<typeof startProofService>>;
let stamp: Schemas["StampResponse"];
let proof: Schemas["StampProof"];
let log: Schemas["LogInfo"];

beforeAll(async () => {
  running = await startProofService();
  const { svc, tick } = running;
  // Two batches, so the stamp's root is not the log's only entry.
  await stampHash(svc);
  await tick();
  const made = await stampHash(svc, ["log"]);
  for (let i = 0; i < 6; i++) await stampHash(svc);
  await tick();
  stamp = await getJson(svc, `/stamps/${made.id}`);
  proof = await getJson(svc, `/stamps/${made.id}/proof`);
  log = await getJson(svc, "/log");
});
afterAll(() => running?.svc.close());

const clone = <T>(value: T): T => structuredClone(value);

describe("GET /stamps/{id}/proof, verified offline", () => {
  it("holds: leaf, audit path, batch signature and log inclusion", async () => {
    expect(proof).toMatchObject({
      format: "stampd.proof/v1",
      batch: { tree_size: 7 },
      log: { index: 1, tree_size: 2 },
    });
    const check = await verifyStampProof(stamp.stamp_json, proof, {
      trustedServiceKeys: [stamp.stamp_json.service_public_key],
      trustedLogKeys: [log.verifier_key],
    });
    expect(check.failures).toEqual([]);
    expect(check).toMatchObject({
      valid: true,
      leaf: "valid",
      merkle: "valid",
      batch_signature: "valid",
      log: "valid",
    });
    expect(check.checkpoint?.treeSize).toBe(2);
  });

  it("fails for a changed stamp, a changed path, a forged batch signature or an untrusted log", async () => {
    const otherStamp = { ...clone(stamp.stamp_json), trust_threshold: 1 };
    const badPath = clone(proof);
    badPath.merkle_proof[0] = "00".repeat(32);
    const badSignature = clone(proof);
    badSignature.batch.signature = `${"0".repeat(127)}1`;
    const badCheckpoint = clone(proof);
    badCheckpoint.log!.checkpoint = badCheckpoint.log!.checkpoint.replace("\n2\n", "\n3\n");
    const options = { trustedLogKeys: [log.verifier_key] };
    expect((await verifyStampProof(otherStamp, proof, options)).leaf).toBe("invalid");
    expect((await verifyStampProof(stamp.stamp_json, badPath, options)).merkle).toBe("invalid");
    expect((await verifyStampProof(stamp.stamp_json, badSignature, options)).batch_signature).toBe("invalid");
    expect((await verifyStampProof(stamp.stamp_json, badCheckpoint, options)).log).toBe("invalid");
    const stranger = "other.example/log+00000000+AaxgmaeA/hD5/ofmXB/i3U9KshXShrLmlZQP13kXsU4V";
    const untrusted = await verifyStampProof(stamp.stamp_json, proof, { trustedLogKeys: [stranger] });
    expect(untrusted.valid).toBe(false);
  });

  it("lets verifyStamp confirm the log anchor offline", async () => {
    const pending = await verifyStamp(stamp.stamp_json);
    // Offline without a proof only the signature is evidence (a pending anchor proves nothing).
    expect(pending).toMatchObject({ pending_anchors: 1, confirmed_anchors: 0, trust_score: 1 });
    expect(pending.details).toMatchObject({ sealed: false, logged: false });
    const proven = await verifyStamp(stamp.stamp_json, { proof, trustedLogKeys: [log.verifier_key] });
    // service 1 + sealed 1 + logged 3
    expect(proven).toMatchObject({ is_valid: true, confirmed_anchors: 1, trust_score: 5 });
    expect(proven.details).toMatchObject({ sealed: true, logged: true });
    expect(proven.details.anchors[0]).toMatchObject({ type: "log", status: "confirmed", reference: "1" });
    const forged = clone(proof);
    forged.batch.root = "11".repeat(32);
    const refused = await verifyStamp(stamp.stamp_json, {
      proof: forged,
      trustedLogKeys: [log.verifier_key],
    });
    expect(refused.details.anchors[0]).toMatchObject({ type: "log", status: "failed" });
  });
});
