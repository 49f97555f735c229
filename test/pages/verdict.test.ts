import { describe, expect, it } from "vitest";
import type { AnchorState, VerifyResult } from "../../sdk/src/verify/types.js";
import { type VerdictKind, verdictOf } from "../../server/pages/verdict.js";

const result = (overrides: Partial<VerifyResult>, anchors: AnchorState[] = []): VerifyResult => ({
  is_valid: true,
  signature_valid: true,
  content_hash_valid: false,
  trust_score: 5,
  trust_threshold: 5,
  trust_met: true,
  confirmed_anchors: 0,
  pending_anchors: 0,
  details: {
    format: "valid",
    service_signature: "valid",
    author_signature: "absent",
    content_hash: "not_checked",
    anchors,
    failures: [],
  },
  ...overrides,
});

const confirmed: AnchorState = {
  type: "log",
  status: "confirmed",
  reference: "7",
  confirmed_at: "2024-11-20T04:29:00Z",
};
const pending: AnchorState = { type: "rfc3161", status: "pending" };
const failed: AnchorState = { type: "bitcoin", status: "failed", reason: "calendar unreachable" };

const cases: [name: string, given: VerifyResult, want: { kind: VerdictKind; headline: string }][] = [
  ["all confirmed, trust met", result({}, [confirmed]), { kind: "valid", headline: "Valid" }],
  ["no anchors, trust met", result({}), { kind: "valid", headline: "Valid" }],
  [
    "an anchor pending",
    result({}, [confirmed, pending]),
    { kind: "pending", headline: "Valid, anchoring pending" },
  ],
  [
    "an anchor failed",
    result({}, [failed, pending]),
    { kind: "warning", headline: "Signed, but an anchor failed" },
  ],
  [
    "trust below threshold",
    result({ trust_met: false, trust_score: 1 }),
    { kind: "warning", headline: "Valid, below its trust threshold" },
  ],
  [
    "invalid outweighs everything",
    result({ is_valid: false, trust_met: false }, [failed]),
    { kind: "invalid", headline: "Not valid" },
  ],
];

describe("verdictOf", () => {
  it.each(cases)("%s", (_name, given, want) => {
    expect(verdictOf(given)).toMatchObject(want);
  });

  it("counts pending anchors in its summary", () => {
    expect(verdictOf(result({}, [pending, { ...pending, type: "log" }, confirmed])).summary).toBe(
      "The signatures are valid. 2 anchors of 3 are still pending.",
    );
  });
});
