import { describe, expect, it } from "vitest";
import { type TrustEvidence, trustScore } from "../../sdk/src/verify/trust.js";

const none: TrustEvidence = {
  serviceSignature: false,
  authorSignature: false,
  hasFingerprint: false,
  anchors: [],
};
const anchors = (...statuses: ("pending" | "confirmed" | "failed")[]) =>
  statuses.map((status) => ({ status }));

// docs/design.md: service +1, author +2, fingerprint +1, pending anchor +1, confirmed +3, failed 0.
describe("trustScore", () => {
  it.each<[string, Partial<TrustEvidence>, number]>([
    ["nothing", {}, 0],
    ["service signature", { serviceSignature: true }, 1],
    ["author signature", { authorSignature: true }, 2],
    ["fingerprint", { hasFingerprint: true }, 1],
    ["two pending anchors", { anchors: anchors("pending", "pending") }, 2],
    ["a confirmed anchor", { anchors: anchors("confirmed") }, 3],
    ["a failed anchor", { anchors: anchors("failed") }, 0],
    [
      "everything: the spec's StampAnchored example",
      { serviceSignature: true, authorSignature: true, anchors: anchors("confirmed", "confirmed") },
      9,
    ],
    [
      "maximum preset at creation, signed, with fingerprint",
      {
        serviceSignature: true,
        authorSignature: true,
        hasFingerprint: true,
        anchors: anchors("pending", "pending", "pending", "pending"),
      },
      8,
    ],
  ])("%s", (_name, evidence, score) => {
    expect(trustScore({ ...none, ...evidence })).toBe(score);
  });
});
