import { describe, expect, it } from "vitest";
import { stampStatus, type TrustEvidence, trustItems, trustScore } from "../../core/trust.js";
import type { AnchorState, AnchorType } from "../../core/types.js";

const none: TrustEvidence = {
  serviceSignature: false,
  authorSignature: false,
  sealed: false,
  logged: false,
  anchors: [],
};
const anchor = (type: AnchorType, status: AnchorState["status"]) => ({ type, status });
// What a default stamp on a default deployment has once its batch is sealed and logged.
const defaultStamp: Partial<TrustEvidence> = { serviceSignature: true, sealed: true, logged: true };

// docs/design.md "Trust score": only evidence counts.
describe("trustScore", () => {
  it.each<[string, Partial<TrustEvidence>, number]>([
    ["nothing", {}, 0],
    ["service signature", { serviceSignature: true }, 1],
    ["author signature", { authorSignature: true }, 2],
    ["sealed in a signed batch", { sealed: true }, 1],
    ["in a signed log checkpoint", { logged: true }, 3],
    ["a default stamp at creation: the signature only", { serviceSignature: true }, 1],
    ["a default stamp once sealed and logged reaches the default threshold 5", defaultStamp, 5],
    [
      "pending anchors prove nothing",
      { anchors: [anchor("rfc3161", "pending"), anchor("bitcoin", "pending")] },
      0,
    ],
    [
      "an unavailable anchor adds nothing",
      { ...defaultStamp, anchors: [anchor("bitcoin", "unavailable")] },
      5,
    ],
    ["a failed anchor adds nothing", { ...defaultStamp, anchors: [anchor("ethereum", "failed")] }, 5],
    ["a confirmed external anchor +3", { ...defaultStamp, anchors: [anchor("rfc3161", "confirmed")] }, 8],
    [
      "a confirmed log anchor is the log inclusion, counted once",
      { ...defaultStamp, anchors: [anchor("log", "confirmed")] },
      5,
    ],
    ["a confirmed log anchor alone shows the inclusion", { anchors: [anchor("log", "confirmed")] }, 3],
    [
      "the archival preset on a default deployment: only the log confirms",
      {
        ...defaultStamp,
        anchors: [
          anchor("log", "confirmed"),
          anchor("rfc3161", "unavailable"),
          anchor("bitcoin", "unavailable"),
        ],
      },
      5,
    ],
    [
      "the spec's StampAnchored example: signed, sealed, logged, RFC 3161 confirmed",
      {
        ...defaultStamp,
        authorSignature: true,
        anchors: [anchor("log", "confirmed"), anchor("rfc3161", "confirmed")],
      },
      10,
    ],
  ])("%s", (_name, evidence, score) => {
    expect(trustScore({ ...none, ...evidence })).toBe(score);
  });

  it("lists each piece of evidence with its points, summing to the score", () => {
    const evidence = {
      ...none,
      ...defaultStamp,
      anchors: [anchor("log", "confirmed"), anchor("bitcoin", "pending")],
    };
    const items = trustItems(evidence);
    expect(items.map((i) => [i.evidence, i.points, i.earned])).toEqual([
      ["Service signature", 1, true],
      ["Author signature", 2, false],
      ["Sealed in a batch the service signed", 1, true],
      ["In a signed checkpoint of the transparency log", 3, true],
      ["Bitcoin anchor", 3, false],
    ]);
    expect(items.filter((i) => i.earned).reduce((sum, i) => sum + i.points, 0)).toBe(trustScore(evidence));
  });
});

describe("stampStatus", () => {
  it.each<[string, boolean, AnchorState["status"][], string]>([
    ["not sealed", false, [], "pending"],
    ["not sealed, anchors pending", false, ["pending"], "pending"],
    ["sealed, no anchors requested: nothing to anchor", true, [], "confirmed"],
    ["sealed, an anchor pending", true, ["confirmed", "pending"], "confirmed"],
    ["sealed, an anchor unavailable here", true, ["confirmed", "unavailable"], "confirmed"],
    ["sealed, an anchor failed", true, ["confirmed", "failed"], "confirmed"],
    ["sealed, every anchor confirmed", true, ["confirmed", "confirmed"], "anchored"],
  ])("%s: %s", (_name, sealed, statuses, want) => {
    expect(
      stampStatus(
        sealed,
        statuses.map((status) => ({ status })),
      ),
    ).toBe(want);
  });
});
