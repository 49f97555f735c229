import { describe, expect, it } from "vitest";
import { trustScore } from "../../core/trust.js";
import type { AnchorState, VerifyResult } from "../../core/types.js";
import { statusText, type VerdictKind, verdictOf } from "../../server/pages/verdict.js";

/** A verification result whose score is the trust function's, as the server's always is. */
const result = (
  { sealed = true, logged = true, is_valid = true, threshold = 5 } = {},
  anchors: AnchorState[] = [],
): VerifyResult => {
  const trust_score = trustScore({
    serviceSignature: is_valid,
    authorSignature: false,
    sealed,
    logged,
    anchors,
  });
  return {
    is_valid,
    signature_valid: is_valid,
    content_hash_valid: false,
    trust_score,
    trust_threshold: threshold,
    trust_met: trust_score >= threshold,
    confirmed_anchors: anchors.filter((a) => a.status === "confirmed").length,
    pending_anchors: anchors.filter((a) => a.status === "pending").length,
    details: {
      format: "valid",
      service_signature: is_valid ? "valid" : "invalid",
      author_signature: "absent",
      content_hash: "not_checked",
      sealed,
      logged,
      anchors,
      failures: [],
    },
  };
};

const confirmed: AnchorState = {
  type: "log",
  status: "confirmed",
  reference: "7",
  confirmed_at: "2024-11-20T04:29:00Z",
};
const tsa: AnchorState = { ...confirmed, type: "rfc3161", reference: "ab" };
const pending: AnchorState = { type: "rfc3161", status: "pending" };
const failed: AnchorState = { type: "bitcoin", status: "failed", reason: "calendar refused the digest" };
const unavailable: AnchorState = {
  type: "bitcoin",
  status: "unavailable",
  reason: "no OpenTimestamps calendar configured (OTS_CALENDAR_URLS)",
};

const cases: [name: string, given: VerifyResult, want: { kind: VerdictKind; headline: string }][] = [
  ["no anchors, sealed and logged: default threshold met", result(), { kind: "valid", headline: "Valid" }],
  ["all confirmed", result({}, [confirmed, tsa]), { kind: "valid", headline: "Valid" }],
  [
    "not sealed yet",
    result({ sealed: false, logged: false }),
    { kind: "pending", headline: "Valid, evidence pending" },
  ],
  [
    "sealed, not logged yet",
    result({ logged: false }),
    { kind: "pending", headline: "Valid, evidence pending" },
  ],
  [
    "an anchor pending",
    result({}, [confirmed, pending]),
    { kind: "pending", headline: "Valid, evidence pending" },
  ],
  [
    "an anchor unavailable",
    result({ threshold: 8 }, [confirmed, unavailable]),
    { kind: "warning", headline: "Valid, but 1 requested anchor is unavailable here" },
  ],
  [
    "an anchor failed",
    result({}, [failed, pending]),
    { kind: "warning", headline: "Signed, but an anchor failed" },
  ],
  [
    "all evidence in, below threshold",
    result({ threshold: 12 }, [confirmed, tsa]),
    { kind: "warning", headline: "Valid, below its trust threshold" },
  ],
  [
    "invalid outweighs everything",
    result({ is_valid: false }, [failed]),
    { kind: "invalid", headline: "Not valid" },
  ],
];

describe("verdictOf", () => {
  it.each(cases)("%s", (_name, given, want) => {
    expect(verdictOf(given)).toMatchObject(want);
  });

  it("names what is still to come and ends with the score", () => {
    const logPending: AnchorState = { type: "log", status: "pending" };
    expect(verdictOf(result({ logged: false }, [pending, logPending])).summary).toBe(
      "The signatures are valid. Still to come: inclusion in a signed log checkpoint; 2 pending anchors (RFC 3161 time-stamp authority, Transparency log). Trust score 2 of 5 required: not met.",
    );
  });

  it("names the anchors this deployment cannot provide, and says they add nothing", () => {
    expect(verdictOf(result({ threshold: 8 }, [confirmed, unavailable])).summary).toBe(
      "The signatures are valid, but this deployment cannot provide Bitcoin (OpenTimestamps), so it adds nothing to the trust score. Trust score 5 of 8 required: not met.",
    );
  });

  it("never calls a stamp valid whose score is below its threshold", () => {
    const anchorSets = [[], [confirmed], [confirmed, tsa], [pending], [unavailable], [failed]];
    for (const anchors of anchorSets) {
      for (const threshold of [0, 5, 8, 100]) {
        for (const [sealed, logged] of [
          [false, false],
          [true, false],
          [true, true],
        ] as const) {
          const given = result({ sealed, logged, threshold }, anchors);
          if (verdictOf(given).kind === "valid") expect(given.trust_met).toBe(true);
        }
      }
    }
  });
});

describe("statusText", () => {
  it.each<[string, Parameters<typeof statusText>, string]>([
    ["pending", ["pending", [pending]], "Pending (not yet in a signed batch)"],
    ["no anchors", ["confirmed", []], "Confirmed (in a signed batch; no anchors were requested)"],
    [
      "anchors pending",
      ["confirmed", [confirmed, pending]],
      "Confirmed (in a signed batch; anchors pending)",
    ],
    [
      "an anchor unavailable",
      ["confirmed", [confirmed, unavailable]],
      "Confirmed (in a signed batch; not anchored: Bitcoin (OpenTimestamps) failed or unavailable here)",
    ],
    ["anchored", ["anchored", [confirmed]], "Anchored (every requested anchor has confirmed)"],
  ])("%s", (_name, args, want) => {
    expect(statusText(...args)).toBe(want);
  });
});
