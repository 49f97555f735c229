import { generateKeyPairSync } from "node:crypto";
import { bytesToHex } from "@noble/hashes/utils.js";
import { describe, expect, it } from "vitest";
import { leafHash, verifyInclusion } from "../../core/merkle.js";
import { proofBatchSigningMessage } from "../../core/proof-batch-signature.js";
import { stampLeafData } from "../../core/stamp-leaf.js";
import { ed25519Signer } from "../../server/keys/ed25519.js";
import { sealStamps } from "../../server/proofs/seal.js";
import { stampLeafHash } from "../../server/proofs/stamp-leaf-hash.js";

const signer = ed25519Signer(generateKeyPairSync("ed25519").privateKey);
const at = new Date("2026-03-01T12:00:00.000Z");

/** A stand-in for a stored stamp as a claim returns it; its keys are in canonical order already. */
function claimedOf(document: { anchors: string[]; stamp_id: string }) {
  const stored = JSON.stringify(document);
  return {
    id: document.stamp_id,
    accountId: null,
    leafHash: stampLeafHash(stored),
    opening: stored,
    document,
  };
}

/** Stand-ins for stored stamps: only `anchors` and distinct content matter to sealing. */
function claimed(n: number) {
  return Array.from({ length: n }, (_, i) =>
    claimedOf({ anchors: ["log"], stamp_id: `stp_${String(i).padStart(26, "0")}` }),
  );
}

describe("Merkle batches", () => {
  it("prove every leaf of every batch size from 1 to 300 with the SDK's verifier", () => {
    for (let size = 1; size <= 300; size++) {
      const stamps = claimed(size);
      const { batch, leaves } = sealStamps("bat_x", stamps, signer, at);
      expect(batch.treeSize).toBe(size);
      for (const leaf of leaves) {
        const hash = leafHash(stampLeafData(stamps[leaf.leafIndex]!.document));
        if (!verifyInclusion(hash, leaf.leafIndex, size, leaf.auditPath, batch.root)) {
          expect.unreachable(`leaf ${leaf.leafIndex} of ${size} does not verify`);
        }
      }
    }
  });

  it("orders leaves by stamp id whatever order the store returned them in", () => {
    const stamps = claimed(5);
    const { leaves } = sealStamps("bat_x", [...stamps].reverse(), signer, at);
    expect(leaves.map((l) => l.stampId)).toEqual(stamps.map((s) => s.id));
  });

  it("signs the batch's id, size, root and time once per batch and collects the requested anchor types", () => {
    const stamps = claimed(3).map((s, i) =>
      claimedOf({ ...s.document, anchors: i === 0 ? ["log", "rfc3161"] : ["bitcoin"] }),
    );
    const sealed = sealStamps("bat_x", stamps, signer, at);
    const signed = {
      id: "bat_x",
      tree_size: 3,
      root: bytesToHex(sealed.batch.root),
      sealed_at: at.toISOString(),
    };
    expect(sealed.batch.signature).toBe(signer.sign(proofBatchSigningMessage(signed)));
    expect(sealed.anchors.sort()).toEqual(["bitcoin", "log", "rfc3161"]);
  });

  describe("a tampered proof fails", () => {
    const stamps = claimed(37);
    const { batch, leaves } = sealStamps("bat_x", stamps, signer, at);
    const leaf = leaves[13]!;
    const hash = leafHash(stampLeafData(stamps[13]!.document));
    const flip = (bytes: Uint8Array) => bytes.map((b, i) => (i === 0 ? b ^ 1 : b));
    const cases: [string, () => boolean][] = [
      ["untouched (control)", () => verifyInclusion(hash, 13, 37, leaf.auditPath, batch.root)],
      [
        "another stamp's leaf",
        () =>
          verifyInclusion(leafHash(stampLeafData(stamps[14]!.document)), 13, 37, leaf.auditPath, batch.root),
      ],
      [
        "a flipped bit in a sibling",
        () =>
          verifyInclusion(
            hash,
            13,
            37,
            leaf.auditPath.map((p, i) => (i === 2 ? flip(p) : p)),
            batch.root,
          ),
      ],
      ["another index", () => verifyInclusion(hash, 12, 37, leaf.auditPath, batch.root)],
      // (A larger size whose tree has the same shape around leaf 13, e.g. 38, proves nothing new.)
      ["a smaller tree size", () => verifyInclusion(hash, 13, 20, leaf.auditPath, batch.root)],
      ["a sibling left out", () => verifyInclusion(hash, 13, 37, leaf.auditPath.slice(1), batch.root)],
      [
        "a sibling too many",
        () => verifyInclusion(hash, 13, 37, [...leaf.auditPath, batch.root], batch.root),
      ],
      ["another root", () => verifyInclusion(hash, 13, 37, leaf.auditPath, flip(batch.root))],
    ];
    it.each(cases)("%s", (name, check) => {
      expect(check()).toBe(name === "untouched (control)");
    });
  });
});
