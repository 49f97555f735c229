import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import type { components } from "../gen/openapi/types.js";
import { quote } from "./quote.js";

type FingerprintDocument = components["schemas"]["FingerprintDocument"];
type ShadowTransform = components["schemas"]["ShadowTransform"];
type ShadowScale = components["schemas"]["ShadowScale"];
/** Six shadow transforms, one per scale: a document's `shadows` or an entry of its `fine_shadows`. */
type ShadowSet = { readonly shadows: readonly ShadowTransform[] };
type CompareResponse = components["schemas"]["CompareResponse"];
type Assessment = components["schemas"]["Assessment"];
type Similarities = components["schemas"]["Similarities"];

/**
 * Shadow transforms and their comparison (docs/fingerprint.md), portable so that the server's
 * `/fingerprint/compare` and the SDK's offline proof verification compute the same numbers.
 */
export const SHADOW_SCALES: readonly ShadowScale[] = [2, 3, 5, 7, 11, 13];
/** Values a full shadow keeps; a shadow with fewer holds every feature of its document. */
export const SKETCH_SIZE = 128;

const STRUCTURE_DOMAIN = utf8ToBytes("stampd-fingerprint-structure-v1");

/** `resolution` of a scale: 100 / scale as percentage text with two decimals. */
export const resolutionOf = (scale: number) => `${(100 / scale).toFixed(2)}%`;

/** SHA-256 (hex) of shadow values, each as a 4-byte big-endian unsigned integer. */
export function shadowHash(values: readonly number[]): string {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  for (const [i, v] of values.entries()) view.setUint32(i * 4, v);
  return bytesToHex(sha256(bytes));
}

/** Average size in bytes of the pieces of `shadows`; `fine_shadows` hold finer ones. */
export const STANDARD_PIECE_BYTES = 64;

/**
 * The similarity of two documents at one scale: the Dice coefficient of their feature sets,
 * 2|A ∩ B| / (|A| + |B|), the share of all features of the two documents that the other document
 * also has. Jaccard (|A ∩ B| / |A ∪ B|) counts every changed passage in the denominator of both,
 * so a revision keeping 80 % of each document's passages scores 0.67 at best; Dice scores it
 * 0.8, which is what the assessment labels describe. Estimated from the Jaccard estimate J of the
 * sketches as 2J / (1 + J), exact when both sketches are complete. Symmetric.
 */
export function sketchSimilarity(a: readonly number[], b: readonly number[]): number {
  const jaccard = sketchJaccard(a, b);
  return (2 * jaccard) / (1 + jaccard);
}

/**
 * Jaccard similarity of two documents' feature sets estimated from their bottom-k sketches
 * (Broder 1997; Cohen & Kaplan 2007): among the k smallest distinct values of the union, the share
 * found in both. k is the size of the full sketches; a sketch shorter than SKETCH_SIZE is its whole
 * set, so it never limits k, and two such sketches give the exact Jaccard index. Symmetric.
 */
export function sketchJaccard(a: readonly number[], b: readonly number[]): number {
  const k = Math.min(
    a.length >= SKETCH_SIZE ? a.length : Infinity,
    b.length >= SKETCH_SIZE ? b.length : Infinity,
  );
  let i = 0;
  let j = 0;
  let taken = 0;
  let shared = 0;
  while (taken < k && (i < a.length || j < b.length)) {
    const x = i < a.length ? a[i]! : Infinity;
    const y = j < b.length ? b[j]! : Infinity;
    if (x === y) shared++;
    if (x <= y) i++;
    if (y <= x) j++;
    taken++;
  }
  // Two empty sketches: two empty documents, which are identical.
  return taken === 0 ? 1 : shared / taken;
}

/** The assessment text of an overall similarity (docs/fingerprint.md, 6. Comparison). */
export function assessmentFor(overall: number): Assessment {
  if (overall >= 0.9) return "Very similar - likely same or nearly identical documents";
  if (overall >= 0.7) return "Similar - significant shared structure";
  if (overall >= 0.5) return "Somewhat similar - some structural overlap";
  return "Different - distinct structure";
}

const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

/**
 * Per-scale similarities, their mean as the overall similarity (all rounded to 4 decimals) and the
 * assessment of the rounded overall value, at the finest piece size both documents carry
 * (`comparableShadows`). Documents must pass `shadowProblems` first.
 */
export function compareShadows(a: FingerprintDocument, b: FingerprintDocument): CompareResponse {
  const [shadowsA, shadowsB] = comparableShadows(a, b);
  const raw = SHADOW_SCALES.map((scale) =>
    sketchSimilarity(shadowAt(shadowsA, scale).values, shadowAt(shadowsB, scale).values),
  );
  const similarities = Object.fromEntries(
    SHADOW_SCALES.map((scale, i) => [String(scale), round4(raw[i]!)]),
  ) as Similarities;
  const overall = round4(raw.reduce((sum, s) => sum + s, 0) / raw.length);
  return { similarities, overall_similarity: overall, assessment: assessmentFor(overall) };
}

/**
 * The two documents' shadows at the finest piece size both carry: a short document has
 * `fine_shadows` (docs/fingerprint.md), and features over pieces of different sizes never match,
 * so both sides must use the same size. Documents without `fine_shadows` (4 KiB or more, or made
 * before they existed) compare by `shadows`, as they always did.
 */
export function comparableShadows(a: FingerprintDocument, b: FingerprintDocument): [ShadowSet, ShadowSet] {
  for (const fine of a.fine_shadows ?? []) {
    const match = b.fine_shadows?.find((other) => other.piece_bytes === fine.piece_bytes);
    if (match) return [fine, match];
  }
  return [a, b];
}

export function shadowAt(doc: ShadowSet, scale: number): ShadowTransform {
  const shadow = doc.shadows.find((s) => s.scale === scale);
  if (!shadow) throw new RangeError(`the fingerprint has no shadow at scale ${scale}`);
  return shadow;
}

/**
 * What is wrong with a document's shadows and fine shadows (empty when they are well formed and
 * self-consistent).
 */
export function shadowProblems(doc: FingerprintDocument): string[] {
  return [...standardShadowProblems(doc), ...fineShadowProblems(doc)];
}

/** What is wrong with `shadows`. */
export function standardShadowProblems(doc: FingerprintDocument): string[] {
  return shadowListProblems(doc.shadows, "shadows");
}

/** What is wrong with `fine_shadows`: piece sizes must increase, each with six good shadows. */
export function fineShadowProblems(doc: FingerprintDocument): string[] {
  const fine = doc.fine_shadows ?? [];
  const increasing = fine.every((f, i) => i === 0 || f.piece_bytes > fine[i - 1]!.piece_bytes);
  if (!increasing) return ["fine_shadows must be in increasing order of piece_bytes"];
  return fine.flatMap((f) =>
    shadowListProblems(f.shadows, `fine_shadows of piece_bytes ${quote(f.piece_bytes)}`),
  );
}

function shadowListProblems(shadows: readonly ShadowTransform[], name: string): string[] {
  const inOrder =
    shadows.length === SHADOW_SCALES.length && shadows.every((s, i) => s.scale === SHADOW_SCALES[i]);
  if (!inOrder) {
    const scales = shadows.map((s) => quote(s.scale)).join(",");
    return [`${name} must be one per scale ${SHADOW_SCALES.join(", ")} in that order, not ${scales}`];
  }
  return shadows.flatMap(shadowTransformProblems);
}

function shadowTransformProblems(s: ShadowTransform): string[] {
  const problems: string[] = [];
  const at = `shadow at scale ${s.scale}`;
  if (s.resolution !== resolutionOf(s.scale))
    problems.push(`${at}: resolution is not ${resolutionOf(s.scale)}`);
  if (s.length !== s.values.length) problems.push(`${at}: length is not the number of values`);
  if (s.values.length > SKETCH_SIZE) problems.push(`${at}: more than ${SKETCH_SIZE} values`);
  if (!strictlyIncreasingUint32(s.values))
    problems.push(`${at}: values must be increasing 32-bit unsigned integers`);
  else if (s.hash !== shadowHash(s.values)) problems.push(`${at}: hash does not match the values`);
  return problems;
}

function strictlyIncreasingUint32(values: readonly number[]): boolean {
  return values.every(
    (v, i) => Number.isInteger(v) && v >= 0 && v < 2 ** 32 && (i === 0 || v > values[i - 1]!),
  );
}

/**
 * The commitment of a structure proof: SHA-256 of the ASCII domain
 * `stampd-fingerprint-structure-v1`, the 32-byte Merkle root, the scale as one byte and the
 * 32-byte shadow hash, in that order (hex in, hex out).
 */
export function structureCommitment(merkleRoot: string, scale: number, shadowHashHex: string): string {
  const h = sha256.create();
  h.update(STRUCTURE_DOMAIN);
  h.update(hexToBytes(merkleRoot));
  h.update(Uint8Array.of(scale));
  h.update(hexToBytes(shadowHashHex));
  return bytesToHex(h.digest());
}
