import type { components } from "../gen/openapi/types.js";
import { jcs } from "./jcs.js";

type BatchInfo = components["schemas"]["BatchInfo"];

/**
 * The members of a proof batch (`StampProof.batch`) its signature covers, as a verifier reports
 * them: which batch, how many stamps, which root, and when it was sealed (the time a key ring
 * checks the signing key's period against).
 */
export type SignedBatchFields = Pick<BatchInfo, "id" | "tree_size" | "root" | "sealed_at">;

/**
 * Version 2 of the proof batch signature (issue #35): a context text of its own, then the RFC 8785
 * text of the batch's id, root, sealed_at and tree_size. Version 1 signed the 32 root bytes only,
 * so the size (which an audit path alone does not fix, RFC 6962), the time and the id could be
 * edited unnoticed. The context keeps the message apart from everything else the service key
 * signs: a stamp's payload (JCS text, `{`), a stamp batch (`stampd.stamp-batch/v1`), a bare root
 * (version 1, 32 bytes).
 */
const CONTEXT = "stampd.proof-batch/v2\n";

/**
 * The bytes the service signs for a sealed proof batch.
 *
 * @example
 * const message = proofBatchSigningMessage({ id: "bat_…", tree_size: 3, root: "ab…", sealed_at: "2026-…Z" });
 */
export function proofBatchSigningMessage(batch: SignedBatchFields): Uint8Array {
  const { id, tree_size, root, sealed_at } = batch;
  return new TextEncoder().encode(CONTEXT + jcs({ id, root, sealed_at, tree_size }));
}

/** The batch members a version 1 signature (the root alone) leaves unsigned. */
export const UNSIGNED_BY_VERSION_1 = ["tree_size", "sealed_at", "id"] as const;
