import { hexToBytes } from "@noble/hashes/utils.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RingKey } from "../../core/key-ring.js";
import { verifyInclusion } from "../../core/merkle.js";
import {
  createClient,
  fetchProofBundle,
  type ProofBundle,
  type StampdClient,
  verifyProofBundle,
} from "../../sdk/src/index.js";
import { ManualClock } from "../../server/clock.js";
import { type RunningService, startService } from "../helpers/service.js";
import { stampHash } from "../proofs/helpers.js";
import { forgeSelfSigned } from "./forged-bundle.js";

// Issue #35, items 5 and 6: proof bundles edited as the audit edited them, each checked by the
// SDK's offline verifier (the one `stampd verify` runs). The service seals when the test ticks.
let svc: RunningService;
let client: StampdClient;
let bundle: ProofBundle;
let ring: RingKey[];
const tick = () => svc.service.proofs.pipeline.tick();
const statuses = (pieces: { name: string; status: string }[]) =>
  Object.fromEntries(pieces.map((p) => [p.name, p.status]));
const edited = (edit: (b: ProofBundle) => void): ProofBundle => {
  const copy = structuredClone(bundle);
  edit(copy);
  return copy;
};

beforeAll(async () => {
  svc = await startService(
    { RATE_LIMIT_ENABLED: "false" },
    { clock: new ManualClock(new Date().toISOString()) },
  );
  client = createClient({ baseUrl: svc.baseUrl, maxRetries: 0 });
  // Three stamps in one batch; the first is leaf 0 of 3. It asked for bitcoin too, which this
  // deployment cannot provide (no calendar configured): its state is `unavailable`.
  const first = await stampHash(svc, ["log", "bitcoin"]);
  await stampHash(svc);
  await stampHash(svc);
  await tick();
  bundle = await fetchProofBundle(client, first.id, { serviceUrl: svc.baseUrl });
  ring = (await client.log.keyRing()).keys;
});
afterAll(() => svc?.close());

describe("proof bundles: the batch signature covers what a verifier reports (item 5)", () => {
  it("the genuine bundle verifies, its batch signed in full", async () => {
    expect(bundle.proof).toMatchObject({ leaf_index: 0, batch: { tree_size: 3 } });
    const check = await verifyProofBundle(bundle, { keyRing: ring });
    expect(check.valid).toBe(true);
    expect(check.pieces.find((p) => p.name === "batch proof")?.detail).toBe(
      "leaf, audit path and batch signature hold",
    );
  });

  it("refuses a tree_size the audit path also fits (3 -> 4 for leaf 0)", async () => {
    const { leaf_hash, leaf_index, merkle_proof, batch } = bundle.proof!;
    const fits = (size: number) =>
      verifyInclusion(
        hexToBytes(leaf_hash),
        leaf_index,
        size,
        merkle_proof.map(hexToBytes),
        hexToBytes(batch.root),
      );
    expect(fits(4)).toBe(true); // the attack: nothing but the signature can tell 4 from 3
    const forged = edited((b) => {
      b.proof!.batch.tree_size = 4;
    });
    const check = await verifyProofBundle(forged);
    expect(check.valid).toBe(false);
    expect(statuses(check.pieces)["batch proof"]).toBe("invalid");
  });

  it.each([
    ["sealed_at moved to 2019", { sealed_at: "2019-01-01T00:00:00.000Z" }],
    ["another batch id", { id: "bat_01JD3X7R2A8B4C6D8E0F2G4H6J" }],
  ])("refuses %s", async (_name, change) => {
    const check = await verifyProofBundle(edited((b) => Object.assign(b.proof!.batch, change)));
    expect(check.valid).toBe(false);
    expect(statuses(check.pieces)["batch proof"]).toBe("invalid");
  });

  it("gives no trust points for a confirmed bitcoin anchor written into the file", async () => {
    const genuine = await verifyProofBundle(bundle);
    const confirmed = {
      type: "bitcoin" as const,
      status: "confirmed" as const,
      reference: "ab".repeat(32),
      confirmed_at: "2026-01-01T00:00:00.000Z",
    };
    const forged = edited((b) => {
      b.proof!.anchors = b.proof!.anchors.map((a) => (a.type === "bitcoin" ? confirmed : a));
      b.stamp.anchors = b.stamp.anchors.map((a) => (a.type === "bitcoin" ? confirmed : a));
    });
    const check = await verifyProofBundle(forged);
    expect(check.verification.trust_score).toBe(genuine.verification.trust_score);
    expect(check.verification.confirmed_anchors).toBe(genuine.verification.confirmed_anchors);
    expect(check.pieces.find((p) => p.name === "anchor bitcoin")).toMatchObject({
      status: "unverified",
      detail: expect.stringContaining("not in the trust score offline"),
    });
  });

  it("still verifies a batch signed before the change (the root alone), and names what it leaves unsigned", async () => {
    const legacy = edited((b) => {
      b.proof!.batch.signature = svc.service.ctx.keys.signing.sign(hexToBytes(b.proof!.batch.root));
    });
    const check = await verifyProofBundle(legacy, { keyRing: ring });
    expect(check.valid).toBe(true);
    expect(check.pieces.find((p) => p.name === "batch proof")?.detail).toBe(
      "leaf, audit path and batch signature hold (a version 1 signature, over the root only: the batch's tree_size, sealed_at, id are unsigned)",
    );
  });
});

describe("who vouches for the signer (item 6)", () => {
  it("a self-signed bundle backdated to 2019 is valid only as 'signer unknown', and invalid with the key ring", async () => {
    const forged = forgeSelfSigned(bundle, { created_at: "2019-06-01T00:00:00.000Z" });
    const alone = await verifyProofBundle(forged);
    expect(alone).toMatchObject({ valid: true, signer: "unknown" });
    const ringed = await verifyProofBundle(forged, { keyRing: ring });
    expect(ringed).toMatchObject({ valid: false, signer: "key_ring" });
    expect(statuses(ringed.pieces)["service signature"]).toBe("invalid");
  });

  it("the genuine bundle's signer is known with the key ring or a pinned key", async () => {
    expect(await verifyProofBundle(bundle, { keyRing: ring })).toMatchObject({
      valid: true,
      signer: "key_ring",
    });
    const key = bundle.stamp.stamp_json.service_public_key;
    expect(await verifyProofBundle(bundle, { trustedServiceKeys: [key] })).toMatchObject({
      valid: true,
      signer: "pinned",
    });
  });
});
