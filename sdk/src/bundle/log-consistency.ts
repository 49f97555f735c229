import { hexToBytes } from "@noble/hashes/utils.js";
import { verifyCheckpoint } from "../../../core/checkpoint.js";
import { verifyConsistency } from "../../../core/merkle.js";
import type { components } from "../../../gen/openapi/types.js";

type LogConsistencyProof = components["schemas"]["LogConsistencyProof"];

/**
 * Checks that the log tree of the `newer` signed checkpoint extends the tree of the `older` one:
 * both signatures verify with a trusted log key and the RFC 6962 consistency proof leads from the
 * older root to the newer. The proof's own roots are not trusted, the checkpoints' are. Returns
 * what failed, or null when it holds.
 */
export async function checkLogConsistency(
  older: string,
  newer: string,
  proof: LogConsistencyProof,
  trustedLogKeys: readonly string[],
): Promise<string | null> {
  try {
    const first = await verifyCheckpoint(older, trustedLogKeys);
    const second = await verifyCheckpoint(newer, trustedLogKeys);
    if (proof.first !== first.treeSize || proof.second !== second.treeSize) {
      return `the proof is between sizes ${proof.first} and ${proof.second}, the checkpoints are ${first.treeSize} and ${second.treeSize}`;
    }
    const path = proof.proof.map(hexToBytes);
    if (verifyConsistency(first.treeSize, second.treeSize, first.rootHash, second.rootHash, path))
      return null;
    return `the consistency proof does not lead from size ${first.treeSize} to size ${second.treeSize}`;
  } catch (err) {
    // A checkpoint that does not parse or verify (CheckpointError), or malformed hex in the proof.
    return (err as Error).message;
  }
}
