import { compareShadows, shadowAt, structureCommitment } from "../../core/shadows.js";
import type { components } from "../../gen/openapi/types.js";
import { invalid } from "../errors.js";
import { requireConsistentChunks, requireConsistentShadows } from "./consistency.js";
import { chunkLeafHashes, merkle } from "./merkle.js";
import type { FingerprintDocument, ShadowScale } from "./types.js";

type ProofRequest = components["schemas"]["ProofRequest"];
type FingerprintProof = components["schemas"]["FingerprintProof"];

const DEFAULT_SCALE: ShadowScale = 7;
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

/** Builds a partial proof (docs/fingerprint.md, 7. Partial proofs); each verifies offline with the SDK's verifyFingerprintProof. */
export function buildProof(request: ProofRequest): FingerprintProof {
  const doc = request.fingerprint_json;
  const header = { merkle_root: doc.merkle_root, standard_hash: doc.standard_hash };
  switch (request.proof_type) {
    case "existence":
      return { proof_type: "existence", ...header, proof: existenceProof(doc, request.section_index) };
    case "structure":
      return {
        proof_type: "structure",
        ...header,
        proof: structureProof(doc, request.scale ?? DEFAULT_SCALE),
      };
    case "similarity":
      return {
        proof_type: "similarity",
        ...header,
        proof: similarityProof(doc, request.reference_fingerprint),
      };
  }
}

/** RFC 6962 audit path of chunk `index`. */
function existenceProof(doc: FingerprintDocument, index: number | undefined) {
  if (index === undefined) throw missing("section_index", "existence");
  if (index >= doc.chunk_count) {
    throw invalid("request validation failed", [
      { path: "/body/section_index", message: `must be below chunk_count (${doc.chunk_count})` },
    ]);
  }
  requireConsistentChunks(doc, "/body/fingerprint_json");
  const leaves = chunkLeafHashes(doc.chunks.map((c) => c.hash));
  return {
    section_index: index,
    chunk_hash: doc.chunks[index]!.hash,
    leaf_count: doc.chunk_count,
    audit_path: merkle.inclusionProof(leaves, index).map(hex),
  };
}

function structureProof(doc: FingerprintDocument, scale: ShadowScale) {
  requireConsistentShadows(doc, "/body/fingerprint_json");
  const shadow = shadowAt(doc, scale);
  return {
    scale,
    shadow_hash: shadow.hash,
    length: shadow.length,
    values: shadow.values,
    commitment: structureCommitment(doc.merkle_root, scale, shadow.hash),
  };
}

function similarityProof(doc: FingerprintDocument, reference: FingerprintDocument | undefined) {
  if (!reference) throw missing("reference_fingerprint", "similarity");
  requireConsistentShadows(doc, "/body/fingerprint_json");
  requireConsistentShadows(reference, "/body/reference_fingerprint");
  return { reference_merkle_root: reference.merkle_root, ...compareShadows(doc, reference) };
}

function missing(field: string, type: string) {
  return invalid("request validation failed", [
    { path: `/body/${field}`, message: `is required for proof_type ${type}` },
  ]);
}
