import { fineShadowProblems, standardShadowProblems } from "../../core/shadows.js";
import { invalid } from "../errors.js";
import { chunkLeafHashes, merkle } from "./merkle.js";
import type { FingerprintDocument } from "./types.js";

/**
 * Checks on fingerprint documents sent back by clients. The schema checks their shape; these
 * check that the parts agree, so no proof or comparison is built on a document that could not
 * have come from the engine. `path` names the document in the error (`/body/fingerprint1`).
 */
export function requireConsistentShadows(doc: FingerprintDocument, path: string): void {
  const problems = standardShadowProblems(doc);
  if (problems.length) throw inconsistent(path, "shadows", problems);
  const fine = fineShadowProblems(doc);
  if (fine.length) throw inconsistent(path, "fine_shadows", fine);
}

/** The chunks tile the document and their Merkle root is `merkle_root`. */
export function requireConsistentChunks(doc: FingerprintDocument, path: string): void {
  const problems = chunkProblems(doc);
  if (problems.length) throw inconsistent(path, "chunks", problems);
}

function chunkProblems(doc: FingerprintDocument): string[] {
  if (doc.chunk_count !== doc.chunks.length) return ["chunk_count is not the number of chunks"];
  let end = 0;
  for (const [i, chunk] of doc.chunks.entries()) {
    if (chunk.offset !== end) return [`chunk ${i} does not start where chunk ${i - 1} ends`];
    end += chunk.length;
  }
  if (end !== doc.size_bytes) return ["the chunks do not cover size_bytes"];
  const root = Buffer.from(merkle.merkleRoot(chunkLeafHashes(doc.chunks.map((c) => c.hash)))).toString("hex");
  return root === doc.merkle_root ? [] : ["merkle_root is not the Merkle root of the chunk hashes"];
}

function inconsistent(path: string, member: string, problems: string[]) {
  return invalid(
    "inconsistent fingerprint document",
    problems.map((message) => ({ path: `${path}/${member}`, message })),
  );
}
