import { hexToBytes } from "@noble/hashes/utils.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { verifyFingerprintProof } from "../../core/fingerprint-proof.js";
import { leafHash, verifyInclusion } from "../../core/merkle.js";
import type { components } from "../../gen/openapi/types.js";
import { ServiceError } from "../../server/errors.js";
import { buildProof } from "../../server/fingerprints/proofs.js";
import type { FingerprintDocument } from "../../server/fingerprints/types.js";
import { anyInput, fingerprint, METHODS, wordText } from "./corpus.js";

type Proof = ReturnType<typeof buildProof>;
const methodArb = fc.constantFrom(...METHODS);
const flipHex = (hex: string) => (hex[0] === "0" ? "1" : "0") + hex.slice(1);
const valid = { valid: true, failures: [] };
const unbound =
  "leaf_count is not bound: pass the fingerprint or the stamp's signed fingerprint (its chunk_count)";
/** What a stamp made with `generate_fp` signs of the fingerprint (`stamp_json.fingerprint`). */
const signedPart = ({
  standard_hash,
  merkle_root,
  chunk_count,
  decomposition_method,
}: FingerprintDocument) => ({
  standard_hash,
  merkle_root,
  chunk_count,
  decomposition_method,
});

function expectRefused(call: () => unknown, path: string) {
  try {
    call();
  } catch (err) {
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).code).toBe("invalid_argument");
    expect((err as ServiceError).fieldErrors?.map((e) => e.path)).toContain(path);
    return;
  }
  throw new Error("expected a 400");
}

describe("existence proofs", () => {
  it("verify offline for every chunk index, against the fingerprint or the stamp's part of it", () => {
    fc.assert(
      fc.property(anyInput, methodArb, (bytes, method) => {
        const doc = fingerprint(bytes, method);
        for (let i = 0; i < doc.chunk_count; i++) {
          const proof = buildProof({ fingerprint_json: doc, proof_type: "existence", section_index: i });
          expect(proof.proof).toMatchObject({
            section_index: i,
            chunk_hash: doc.chunks[i]!.hash,
            leaf_count: doc.chunk_count,
          });
          expect(verifyFingerprintProof(proof, signedPart(doc))).toEqual(valid);
          expect(verifyFingerprintProof(proof, doc)).toEqual(valid);
          // Alone, nothing says how many leaves the tree has.
          expect(verifyFingerprintProof(proof)).toEqual({ valid: false, failures: [unbound] });
        }
      }),
      { numRuns: 40 },
    );
  });

  it("fail for a changed chunk, index, size, path element or root", () => {
    const doc = fingerprint(wordText(9, 60 * 1024), "hierarchical");
    for (let i = 0; i < doc.chunk_count; i++) {
      const proof = buildProof({ fingerprint_json: doc, proof_type: "existence", section_index: i });
      const p = proof.proof as {
        chunk_hash: string;
        section_index: number;
        leaf_count: number;
        audit_path: string[];
      };
      const tampered: Proof[] = [
        { ...proof, proof: { ...p, chunk_hash: flipHex(p.chunk_hash) } },
        { ...proof, proof: { ...p, section_index: (i + 1) % doc.chunk_count } },
        { ...proof, proof: { ...p, leaf_count: p.leaf_count * 2 } },
        { ...proof, merkle_root: flipHex(proof.merkle_root) },
        ...p.audit_path.map((_, j) => ({
          ...proof,
          proof: { ...p, audit_path: p.audit_path.map((h, k) => (k === j ? flipHex(h) : h)) },
        })),
      ];
      for (const t of tampered) expect(verifyFingerprintProof(t, signedPart(doc)).valid).toBe(false);
    }
  });

  // Issue #21 finding 14: the same audit path verifies for every tree size with the same path
  // shape (RFC 9162 binds the size through the signed tree head), so a changed leaf_count
  // verified alone. It is now checked against the chunk_count the stamp signs.
  it("with a changed leaf_count the audit path alone cannot tell apart are refused", () => {
    const doc = fingerprint(wordText(5, 60 * 1024), "flat");
    const proof = buildProof({ fingerprint_json: doc, proof_type: "existence", section_index: 0 });
    const p = proof.proof as { chunk_hash: string; leaf_count: number; audit_path: string[] };
    const path = p.audit_path.map(hexToBytes);
    const root = hexToBytes(proof.merkle_root);
    const otherSize = Array.from({ length: 2 * p.leaf_count }, (_, i) => i + 1).find(
      (n) => n !== p.leaf_count && verifyInclusion(leafHash(hexToBytes(p.chunk_hash)), 0, n, path, root),
    );
    expect(otherSize).toBeDefined();
    const changed = { ...proof, proof: { ...p, leaf_count: otherSize! } } as Proof;
    for (const against of [signedPart(doc), doc]) {
      expect(verifyFingerprintProof(changed, against)).toEqual({
        valid: false,
        failures: ["leaf_count is not the fingerprint's chunk_count"],
      });
    }
    expect(verifyFingerprintProof(changed).valid).toBe(false);
  });

  it("of a document with one changed chunk fails against the original fingerprint", () => {
    const text = wordText(21, 40 * 1024);
    const doc = fingerprint(text, "flat");
    const changed = Uint8Array.from(text);
    changed[5000]! ^= 1;
    const other = fingerprint(changed, "flat");
    const proof = buildProof({ fingerprint_json: other, proof_type: "existence", section_index: 1 });
    expect(verifyFingerprintProof(proof, signedPart(other))).toEqual(valid);
    const result = verifyFingerprintProof({ ...proof, merkle_root: doc.merkle_root }, doc);
    expect(result.valid).toBe(false);
    expect(result.failures).toContain("the audit path does not lead from chunk_hash to merkle_root");
    expect(result.failures).toContain("chunk_hash is not the fingerprint's chunk");
  });

  it("are refused (400) without section_index, past the last chunk, or from an inconsistent document", () => {
    const doc = fingerprint(wordText(2, 20 * 1024), "flat");
    expectRefused(
      () => buildProof({ fingerprint_json: doc, proof_type: "existence" }),
      "/body/section_index",
    );
    expectRefused(
      () => buildProof({ fingerprint_json: doc, proof_type: "existence", section_index: doc.chunk_count }),
      "/body/section_index",
    );
    const edited: FingerprintDocument = structuredClone(doc);
    edited.chunks[0]!.hash = flipHex(edited.chunks[0]!.hash);
    expectRefused(
      () => buildProof({ fingerprint_json: edited, proof_type: "existence", section_index: 0 }),
      "/body/fingerprint_json/chunks",
    );
    const empty = fingerprint(new Uint8Array(), "flat");
    expectRefused(
      () => buildProof({ fingerprint_json: empty, proof_type: "existence", section_index: 0 }),
      "/body/section_index",
    );
  });
});

describe("structure proofs", () => {
  const doc = fingerprint(wordText(5, 30 * 1024), "semantic");

  it("carry the shadow at the scale (default 7) with a commitment that verifies offline", () => {
    for (const scale of [undefined, 2, 3, 5, 7, 11, 13] as const) {
      const proof = buildProof({
        fingerprint_json: doc,
        proof_type: "structure",
        ...(scale ? { scale } : {}),
      });
      const shadow = doc.shadows.find((s) => s.scale === (scale ?? 7))!;
      expect(proof.proof).toMatchObject({
        scale: scale ?? 7,
        shadow_hash: shadow.hash,
        values: shadow.values,
      });
      expect(verifyFingerprintProof(proof)).toEqual(valid);
      expect(verifyFingerprintProof(proof, doc)).toEqual(valid);
    }
  });

  it("fail when the values, hash, commitment, root or fingerprint differ", () => {
    const proof = buildProof({ fingerprint_json: doc, proof_type: "structure", scale: 11 });
    const p = proof.proof as components["schemas"]["StructureProof"];
    const tampered: Proof[] = [
      { ...proof, proof: { ...p, values: [p.values[0]! + 1, ...p.values.slice(1)] } },
      { ...proof, proof: { ...p, shadow_hash: flipHex(p.shadow_hash) } },
      { ...proof, proof: { ...p, commitment: flipHex(p.commitment) } },
      { ...proof, proof: { ...p, length: p.length + 1 } },
      { ...proof, merkle_root: flipHex(proof.merkle_root) },
    ];
    for (const t of tampered) expect(verifyFingerprintProof(t).valid).toBe(false);
    const other = fingerprint(wordText(6, 30 * 1024), "semantic");
    expect(verifyFingerprintProof(proof, other).valid).toBe(false);
  });
});

describe("similarity proofs", () => {
  const a = fingerprint(wordText(7, 50 * 1024), "hierarchical");
  const text = Uint8Array.from(wordText(7, 50 * 1024));
  text.set(wordText(8, 4 * 1024), 10_000);
  const b = fingerprint(text, "hierarchical");

  it("give /compare's numbers and verify offline, alone and recomputed from both fingerprints", () => {
    const proof = buildProof({ fingerprint_json: a, proof_type: "similarity", reference_fingerprint: b });
    expect(proof.proof).toMatchObject({ reference_merkle_root: b.merkle_root });
    expect(verifyFingerprintProof(proof)).toEqual(valid);
    expect(verifyFingerprintProof(proof, a, b)).toEqual(valid);
  });

  it("fail when a similarity, the overall value, the assessment or the reference differ", () => {
    const proof = buildProof({ fingerprint_json: a, proof_type: "similarity", reference_fingerprint: b });
    const p = proof.proof as {
      similarities: Record<string, number>;
      overall_similarity: number;
      assessment: string;
    };
    const tampered: Proof[] = [
      { ...proof, proof: { ...p, similarities: { ...p.similarities, "7": 0.1 } } as never },
      { ...proof, proof: { ...p, overall_similarity: 0.2 } as never },
      { ...proof, proof: { ...p, assessment: "Different - distinct structure" } as never },
    ];
    for (const t of tampered) expect(verifyFingerprintProof(t).valid).toBe(false);
    const c = fingerprint(wordText(99, 50 * 1024), "hierarchical");
    expect(verifyFingerprintProof(proof, a, c).valid).toBe(false);
  });

  it("are refused (400) without reference_fingerprint", () => {
    expectRefused(
      () => buildProof({ fingerprint_json: a, proof_type: "similarity" }),
      "/body/reference_fingerprint",
    );
  });
});

describe("verifyFingerprintProof", () => {
  it("reports a malformed proof instead of throwing", () => {
    const doc = fingerprint(wordText(1, 10 * 1024), "flat");
    const proof = buildProof({ fingerprint_json: doc, proof_type: "existence", section_index: 0 });
    const broken = { ...proof, proof: { ...proof.proof, audit_path: ["zz"] } } as Proof;
    expect(verifyFingerprintProof(broken).valid).toBe(false);
    expect(verifyFingerprintProof({ ...proof, proof_type: "other" } as never).failures[0]).toMatch(
      /unknown proof_type/,
    );
  });
});
