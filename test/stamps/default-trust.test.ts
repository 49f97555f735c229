import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStamp } from "../../core/stamp.js";
import { connectClient } from "../grpc/fixture.js";
import type { RunningService } from "../helpers/service.js";
import { startProofService } from "../proofs/helpers.js";
import { createStamp, type StampResponse, type VerifyResponse } from "./helpers.js";

// Issue #22: a default stamp (no preset, no anchors, threshold 5) on a default deployment (no TSA,
// no OpenTimestamps calendar, no Ethereum node) must reach its threshold once its evidence exists,
// and REST, gRPC and the SDK's offline verifier must say so alike.

let svc: RunningService;
let tick: () => Promise<unknown>;
beforeAll(async () => {
  ({ svc, tick } = await startProofService());
});
afterAll(() => svc?.close());

const rest = async (id: string): Promise<VerifyResponse> =>
  (await fetch(`${svc.baseUrl}/stamps/${id}/verify`, { method: "POST" })).json();
const grpc = (id: string) => connectClient(svc).verify({ stampId: id, contentHash: "" });
const offline = async (stamp: StampResponse) => {
  const proof = await (await fetch(`${svc.baseUrl}/stamps/${stamp.stamp_id}/proof`)).json();
  const log = await (await fetch(`${svc.baseUrl}/log`)).json();
  return verifyStamp(stamp.stamp_json, {
    proof,
    trustedLogKeys: [log.verifier_key],
    trustedServiceKeys: [stamp.stamp_json.service_public_key],
  });
};

describe("a default stamp on a default deployment", () => {
  it("scores 1 when made (only the signature is evidence yet), not met", async () => {
    const stamp = await createStamp(svc, "made just now");
    expect(stamp).toMatchObject({
      anchors: [],
      status: "pending",
      trust_score: 1,
      trust_threshold: 5,
      trust_met: false,
    });
    expect(await rest(stamp.stamp_id)).toMatchObject({ trust_score: 1, trust_met: false });
    expect(await grpc(stamp.stamp_id)).toMatchObject({ trustScore: 1, trustThreshold: 5, trustMet: false });
  });

  it("reaches trust_met once sealed and logged, alike over REST, gRPC and offline", async () => {
    const stamp = await createStamp(svc, "a plain contract");
    await tick();
    const read: StampResponse = await (await fetch(`${svc.baseUrl}/stamps/${stamp.stamp_id}`)).json();
    expect(read).toMatchObject({ status: "confirmed", trust_score: 5, trust_met: true });
    const byRest = await rest(stamp.stamp_id);
    expect(byRest).toMatchObject({ is_valid: true, trust_score: 5, trust_threshold: 5, trust_met: true });
    expect(byRest.details).toMatchObject({ sealed: true, logged: true, anchors: [] });
    expect(await grpc(stamp.stamp_id)).toMatchObject({
      verified: true,
      trustScore: 5,
      trustThreshold: 5,
      trustMet: true,
    });
    const byOffline = await offline(read);
    expect(byOffline).toMatchObject({ is_valid: true, trust_score: 5, trust_met: true });
    expect(byOffline.details).toEqual(byRest.details);
  });

  it("an archival stamp there: the log counts, the unavailable anchors do not, and it is not anchored", async () => {
    const stamp = await createStamp(svc, "an archived record", { preset: "archival" });
    expect(stamp.anchors.map((a) => a.status)).toEqual(["pending", "unavailable", "unavailable"]);
    await tick();
    const read: StampResponse = await (await fetch(`${svc.baseUrl}/stamps/${stamp.stamp_id}`)).json();
    expect(read).toMatchObject({ status: "confirmed", trust_score: 5, trust_threshold: 8, trust_met: false });
    expect(await rest(stamp.stamp_id)).toMatchObject({
      trust_score: 5,
      confirmed_anchors: 1,
      pending_anchors: 0,
    });
    expect(await grpc(stamp.stamp_id)).toMatchObject({ trustScore: 5, trustMet: false });
    expect(await offline(read)).toMatchObject({ trust_score: 5, trust_met: false });
  });
});
