import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { components } from "../gen/openapi/types.js";
import { leafHash, merkleRoot, verifyInclusion } from "./merkle.js";
import { quote } from "./quote.js";
import {
  assessmentFor,
  compareShadows,
  SHADOW_SCALES,
  shadowHash,
  shadowProblems,
  structureCommitment,
} from "./shadows.js";

type FingerprintProof = components["schemas"]["FingerprintProof"];
type FingerprintDocument = components["schemas"]["FingerprintDocument"];
/** What a stamp made with `generate_fp` signs of its fingerprint (`stamp_json.fingerprint`). */
type StampFingerprint = components["schemas"]["StampFingerprint"];
type ExistenceProof = components["schemas"]["ExistenceProof"];
type StructureProof = components["schemas"]["StructureProof"];
type SimilarityProof = components["schemas"]["SimilarityProof"];

export interface FingerprintProofResult {
  valid: boolean;
  /** Why the proof failed, one line per problem; empty when valid. */
  failures: string[];
}

/**
 * Verifies a proof from `POST /fingerprint/proof` offline, with no network (docs/fingerprint.md).
 * Alone, a proof is checked against its own `merkle_root`: the values, hash and commitment of a
 * structure proof, the arithmetic and assessment of a similarity proof. Given the fingerprint
 * (and, for similarity, the reference fingerprint), it is also checked against them, and a
 * similarity is recomputed. Trust in `merkle_root` itself comes from elsewhere, e.g. a signed
 * stamp document whose `fingerprint` is then passed instead of the whole fingerprint: its
 * `merkle_root`, `standard_hash` and `chunk_count` are compared with the proof's.
 *
 * An existence proof needs one of the two: a Merkle root does not commit to its number of leaves
 * (RFC 9162 checks a tree size against a signed tree head), so the same audit path verifies for
 * several `leaf_count` values and only a trusted `chunk_count` binds it.
 * Never throws: a malformed proof is reported as invalid.
 *
 * @example
 * // A chunk of a stamped document, proven without the document or its fingerprint:
 * const stamp = await verifyStamp(stampJson); // is_valid: the stamp's fingerprint is signed
 * verifyFingerprintProof(proof, stampJson.fingerprint).valid;
 */
export function verifyFingerprintProof(
  proof: FingerprintProof,
  fingerprintJson?: FingerprintDocument | StampFingerprint,
  referenceJson?: FingerprintDocument,
): FingerprintProofResult {
  let failures: string[];
  try {
    failures = [
      ...headerFailures(proof, fingerprintJson),
      ...bodyFailures(proof, fingerprintJson, referenceJson),
    ];
  } catch (err) {
    failures = [`malformed proof: ${err instanceof Error ? err.message : String(err)}`];
  }
  return { valid: failures.length === 0, failures };
}

/** Whether `fingerprint` is a whole fingerprint document rather than a stamp's summary of one. */
const isDocument = (
  fingerprint: FingerprintDocument | StampFingerprint | undefined,
): fingerprint is FingerprintDocument => fingerprint !== undefined && "chunks" in fingerprint;

function headerFailures(
  proof: FingerprintProof,
  doc: FingerprintDocument | StampFingerprint | undefined,
): string[] {
  if (!doc) return [];
  const failures: string[] = [];
  if (doc.merkle_root !== proof.merkle_root) failures.push("merkle_root differs from the fingerprint's");
  if (doc.standard_hash !== proof.standard_hash)
    failures.push("standard_hash differs from the fingerprint's");
  return failures;
}

function bodyFailures(
  proof: FingerprintProof,
  fingerprint: FingerprintDocument | StampFingerprint | undefined,
  reference: FingerprintDocument | undefined,
): string[] {
  const doc = isDocument(fingerprint) ? fingerprint : undefined;
  switch (proof.proof_type) {
    case "existence":
      return existenceFailures(proof.merkle_root, proof.proof as ExistenceProof, fingerprint);
    case "structure":
      return structureFailures(proof.merkle_root, proof.proof as StructureProof, doc);
    case "similarity":
      return similarityFailures(proof.proof as SimilarityProof, doc, reference);
    default:
      return [`unknown proof_type ${quote((proof as { proof_type: unknown }).proof_type)}`];
  }
}

function existenceFailures(
  root: string,
  p: ExistenceProof,
  fingerprint: FingerprintDocument | StampFingerprint | undefined,
): string[] {
  const leaf = leafHash(hexToBytes(p.chunk_hash));
  const path = p.audit_path.map(hexToBytes);
  const failures = verifyInclusion(leaf, p.section_index, p.leaf_count, path, hexToBytes(root))
    ? []
    : ["the audit path does not lead from chunk_hash to merkle_root"];
  if (!fingerprint) {
    return [
      ...failures,
      "leaf_count is not bound: pass the fingerprint or the stamp's signed fingerprint (its chunk_count)",
    ];
  }
  if (fingerprint.chunk_count !== p.leaf_count)
    failures.push("leaf_count is not the fingerprint's chunk_count");
  if (!isDocument(fingerprint)) return failures;
  const doc = fingerprint;
  if (doc.chunks[p.section_index]?.hash !== p.chunk_hash)
    failures.push("chunk_hash is not the fingerprint's chunk");
  const docRoot = bytesToHex(merkleRoot(doc.chunks.map((c) => leafHash(hexToBytes(c.hash)))));
  if (docRoot !== doc.merkle_root) failures.push("the fingerprint's chunks do not have its merkle_root");
  return failures;
}

function structureFailures(root: string, p: StructureProof, doc: FingerprintDocument | undefined): string[] {
  const failures: string[] = [];
  if (!SHADOW_SCALES.includes(p.scale)) failures.push(`scale ${p.scale} is not a shadow scale`);
  if (p.length !== p.values.length) failures.push("length is not the number of values");
  if (shadowHash(p.values) !== p.shadow_hash) failures.push("shadow_hash is not the hash of values");
  if (structureCommitment(root, p.scale, p.shadow_hash) !== p.commitment) {
    failures.push("commitment does not bind shadow_hash and scale to merkle_root");
  }
  const shadow = doc?.shadows.find((s) => s.scale === p.scale);
  if (doc && shadow?.hash !== p.shadow_hash)
    failures.push(`the fingerprint's shadow at scale ${p.scale} differs`);
  return failures;
}

function similarityFailures(
  p: SimilarityProof,
  doc: FingerprintDocument | undefined,
  reference: FingerprintDocument | undefined,
): string[] {
  const failures: string[] = [];
  const values = similarityList(p.similarities);
  if (values.some((v) => typeof v !== "number" || v < 0 || v > 1))
    failures.push("a similarity is not in [0, 1]");
  const mean = Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 1e4) / 1e4;
  // The mean of the rounded values may differ from the rounded mean by the rounding of each.
  if (Math.abs(mean - p.overall_similarity) > 1e-4)
    failures.push("overall_similarity is not the mean similarity");
  if (assessmentFor(p.overall_similarity) !== p.assessment)
    failures.push("assessment does not match overall_similarity");
  if (!doc || !reference) return failures;
  if (reference.merkle_root !== p.reference_merkle_root)
    failures.push("reference_merkle_root differs from the reference's");
  const problems = [...shadowProblems(doc), ...shadowProblems(reference)];
  if (problems.length) return [...failures, ...problems];
  const expected = compareShadows(doc, reference);
  const same =
    similarityList(expected.similarities).every((v, i) => v === values[i]) &&
    expected.overall_similarity === p.overall_similarity;
  if (!same) failures.push("the similarities differ from those of the two fingerprints");
  return failures;
}

/** The similarities in scale order. */
const similarityList = (similarities: SimilarityProof["similarities"]) =>
  SHADOW_SCALES.map((scale) => (similarities as Record<string, number>)[String(scale)]!);
