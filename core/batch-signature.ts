import { hexToBytes } from "@noble/hashes/utils.js";
import { leafHash, type Merkle, verifyInclusion } from "./merkle.js";
import type { StampDocument } from "./types.js";

export type ServiceBatchSignature = NonNullable<StampDocument["signatures"]["service_batch"]>;

/**
 * What a batch signature signs before the tree: a context text of its own, so a signature over a
 * batch of stamps can never be taken for anything else the service key signs (a stamp's payload,
 * a Merkle batch root of the proof pipeline, a log checkpoint).
 */
const BATCH_SIGNING_CONTEXT = new TextEncoder().encode("stampd.stamp-batch/v1\n");

/**
 * The bytes the service signs for a batch of stamps: the context text, the tree size as an 8-byte
 * big-endian integer, then the 32 root bytes. The size is signed as RFC 6962 tree heads sign it:
 * an audit path can hold for more than one size, so an unsigned size could be changed unnoticed.
 */
export function batchSigningMessage(treeSize: number, root: Uint8Array): Uint8Array {
  const at = BATCH_SIGNING_CONTEXT.length;
  const message = new Uint8Array(at + 8 + root.length);
  message.set(BATCH_SIGNING_CONTEXT);
  new DataView(message.buffer).setBigUint64(at, BigInt(treeSize));
  message.set(root, at + 8);
  return message;
}

/** The hashing a verifier brings (the server passes node:crypto's; the default is @noble's). */
export type BatchMerkle = Pick<Merkle, "leafHash" | "verifyInclusion">;

/**
 * Whether `batch.audit_path` leads from the leaf of this stamp's signed payload, at
 * `batch.leaf_index` of `batch.tree_size`, to `batch.root` (RFC 9162 2.1.3.2). The hex members
 * are well formed: the format check has passed.
 */
export function inBatch(
  batch: ServiceBatchSignature,
  payload: Uint8Array,
  merkle: BatchMerkle = { leafHash, verifyInclusion },
): boolean {
  return merkle.verifyInclusion(
    merkle.leafHash(payload),
    batch.leaf_index,
    batch.tree_size,
    batch.audit_path.map(hexToBytes),
    hexToBytes(batch.root),
  );
}
