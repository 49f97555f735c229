import { treeHeight } from "../../core/merkle.js";
import { SHADOW_SCALES } from "../../core/shadows.js";
import type { ChunkList } from "./chunk-list.js";
import { chunkLeafHashes, merkle } from "./merkle.js";
import {
  type DecompositionMethod,
  FINGERPRINT_FORMAT,
  type FineShadows,
  type FingerprintDocument,
  type FingerprintResponse,
  type ProofType,
  type ShadowTransform,
} from "./types.js";

export interface DocumentParts {
  method: DecompositionMethod;
  size: number;
  sha3Hex: string;
  list: ChunkList;
  histogram: Float64Array;
  shadows: ShadowTransform[];
  fineShadows: FineShadows[];
}

/** The fingerprint document; its member order is fixed so equal inputs give equal JSON bytes. */
export function assembleDocument(parts: DocumentParts): FingerprintDocument {
  const { chunks, sections } = parts.list;
  const root = merkle.merkleRoot(chunkLeafHashes(chunks.map((c) => c.hash)));
  return {
    format: FINGERPRINT_FORMAT,
    standard_hash: `sha3-256:${parts.sha3Hex}`,
    merkle_root: Buffer.from(root).toString("hex"),
    chunk_count: chunks.length,
    tree_depth: treeHeight(chunks.length),
    entropy: entropy(parts.histogram, parts.size),
    decomposition_method: parts.method,
    size_bytes: parts.size,
    chunks,
    ...(parts.method === "hierarchical" ? { sections } : {}),
    shadows: parts.shadows,
    ...(parts.fineShadows.length > 0 ? { fine_shadows: parts.fineShadows } : {}),
  };
}

/** The REST answer: the document's summary fields beside the document itself. */
export function fingerprintResponse(doc: FingerprintDocument): FingerprintResponse {
  return {
    standard_hash: doc.standard_hash,
    merkle_root: doc.merkle_root,
    chunk_count: doc.chunk_count,
    tree_depth: doc.tree_depth,
    shadow_scales: [...SHADOW_SCALES],
    entropy: doc.entropy,
    decomposition_method: doc.decomposition_method,
    proofs_available: proofsAvailable(doc),
    fingerprint_json: doc,
  };
}

/** An existence proof needs a chunk to prove; an empty document has none. */
export function proofsAvailable(doc: FingerprintDocument): ProofType[] {
  return doc.chunk_count > 0 ? ["existence", "structure", "similarity"] : ["structure", "similarity"];
}

/**
 * Shannon entropy of the byte distribution in bits per byte, summed over byte values 0 to 255 in
 * order and rounded to 4 decimals (so the document's bytes do not depend on float noise).
 */
function entropy(histogram: Float64Array, size: number): number {
  if (size === 0) return 0;
  let bits = 0;
  for (const count of histogram) {
    if (count === 0) continue;
    const p = count / size;
    bits -= p * Math.log2(p);
  }
  return Math.round(bits * 1e4) / 1e4;
}
