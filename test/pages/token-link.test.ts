import { describe, expect, it } from "vitest";
import { listOperations } from "../../server/contract/openapi.js";
import { otsUrl, tokenUrl } from "../../server/pages/token-link.js";

const base = "https://stampd.example.com/prefix";
const stamp = { stamp_id: "stp_01JD3X7Q6V9M2K8T4R5N0B1C2D", hash_algorithm: "sha3-256" } as const;

describe("tokenUrl", () => {
  it("is the spec's path of getStampTimestamp under the public base URL", () => {
    const path = listOperations().find((op) => op.operationId === "getStampTimestamp")!.path;
    expect(tokenUrl(base, { ...stamp, status: "confirmed" })).toBe(
      base + path.replace("{stamp_id}", stamp.stamp_id),
    );
  });

  it.each([
    ["a pending stamp (the export answers 409)", { ...stamp, status: "pending" as const }],
    [
      "a BLAKE3 stamp (the export answers 422)",
      { ...stamp, status: "anchored" as const, hash_algorithm: "blake3" as const },
    ],
  ])("is absent for %s", (_name, given) => {
    expect(tokenUrl(base, given)).toBeUndefined();
  });
});

describe("otsUrl", () => {
  const sealed = {
    stamp_id: stamp.stamp_id,
    status: "confirmed" as const,
    hash_algorithm: "sha256" as const,
    anchors: [{ type: "bitcoin" as const, status: "pending" as const }],
  };

  it("is the spec's path of getStampOpenTimestamps under the public base URL", () => {
    const path = listOperations().find((op) => op.operationId === "getStampOpenTimestamps")!.path;
    expect(otsUrl(base, sealed)).toBe(base + path.replace("{stamp_id}", stamp.stamp_id));
  });

  it.each([
    ["a pending stamp (409)", { ...sealed, status: "pending" as const }],
    ["a SHA3-256 stamp (422)", { ...sealed, hash_algorithm: "sha3-256" as const }],
    ["a stamp without the bitcoin anchor (404)", { ...sealed, anchors: [] }],
    [
      "a bitcoin anchor this deployment cannot work on",
      {
        ...sealed,
        anchors: [{ type: "bitcoin" as const, status: "unavailable" as const, reason: "no calendar" }],
      },
    ],
  ])("is absent for %s", (_name, given) => {
    expect(otsUrl(base, given)).toBeUndefined();
  });
});
