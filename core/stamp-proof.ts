import { verifyAsync } from "@noble/ed25519";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils.js";
import type { components } from "../gen/openapi/types.js";
import { type Checkpoint, verifyCheckpoint } from "./checkpoint.js";
import { type RingKey, ringKeyProblem, ringVerifierKeys } from "./key-ring.js";
import { leafHash, verifyInclusion } from "./merkle.js";
import { proofBatchSigningMessage, UNSIGNED_BY_VERSION_1 } from "./proof-batch-signature.js";
import { stampLeafData } from "./stamp-leaf.js";
import type { AnchorState, StampDocument } from "./types.js";

export type StampProof = components["schemas"]["StampProof"];

export interface VerifyProofOptions {
  /** Service keys (`ed25519:<hex>`) whose batch signatures to accept; absent: the proof's key is taken as given. */
  trustedServiceKeys?: readonly string[] | undefined;
  /** Log verifier keys (`GET /log` `verifier_key`); absent: the log inclusion is not checked. */
  trustedLogKeys?: readonly string[] | undefined;
  /**
   * The deployment's key ring (`GET /keys`): the batch key must be a service key of the ring at the
   * batch's `sealed_at`, and, without `trustedLogKeys`, the ring's log keys check the log inclusion.
   */
  keyRing?: readonly RingKey[] | undefined;
}

/** The outcome of each check of a stamp proof. */
export interface ProofCheck {
  /** Every check that ran passed (the log's only when `trustedLogKeys` were given). */
  valid: boolean;
  /** The proof's leaf is this stamp document. */
  leaf: "valid" | "invalid";
  /** The audit path leads from the leaf to the batch root. */
  merkle: "valid" | "invalid";
  batch_signature: "valid" | "invalid" | "untrusted_key";
  /**
   * Which batch signature verified: 2 covers the batch's id, tree_size, root and sealed_at; 1 (made
   * before issue #35) the root alone. Absent when neither verified.
   */
  batch_signature_version?: 1 | 2;
  /** The `batch` members no verified signature covers (`tree_size`, `sealed_at`, `id` for version 1). */
  unsigned: string[];
  /** The batch root is in a checkpoint signed by a trusted log key. */
  log: "valid" | "invalid" | "absent" | "not_checked";
  /** The verified checkpoint, when `log` is valid. */
  checkpoint?: Checkpoint;
  failures: string[];
}

/**
 * Verifies offline that a stamp is in a batch its service signed (`GET /stamps/{id}/proof`):
 * leaf = SHA-256(0x00 ‖ JCS(stamp)), the RFC 6962 audit path to the batch root, the Ed25519
 * batch signature (version 2 over the batch's id, size, root and sealing time; a version 1
 * signature over the root alone still verifies, its other members reported `unsigned`), and,
 * with `trustedLogKeys`, the root's inclusion in a C2SP
 * checkpoint signed by the log. Portable: @noble only, no node: imports.
 *
 * @example
 * const check = await verifyStampProof(stamp.stamp_json, proof, { trustedLogKeys: [log.verifier_key] });
 * if (!check.valid) console.log(check.failures);
 */
export async function verifyStampProof(
  stamp: StampDocument,
  proof: StampProof,
  options: VerifyProofOptions = {},
): Promise<ProofCheck> {
  const failures: string[] = [];
  const leaf = leafCheck(stamp, proof, failures);
  const merkle = merkleCheck(proof, failures);
  const { batch_signature, version } = await batchSignatureCheck(proof, options, failures);
  const { log, checkpoint } = await logCheck(proof, options, failures);
  return {
    valid: failures.length === 0,
    leaf,
    merkle,
    batch_signature,
    ...(version && { batch_signature_version: version }),
    unsigned: version === 1 ? [...UNSIGNED_BY_VERSION_1] : [],
    log,
    checkpoint,
    failures,
  };
}

function leafCheck(stamp: StampDocument, proof: StampProof, failures: string[]): ProofCheck["leaf"] {
  const computed = leafHash(stampLeafData(stamp));
  if (stamp.stamp_id === proof.stamp_id && bytesToHex(computed) === proof.leaf_hash) return "valid";
  failures.push("leaf: the proof's leaf is not this stamp document");
  return "invalid";
}

function merkleCheck(proof: StampProof, failures: string[]): ProofCheck["merkle"] {
  const ok = safe(() =>
    verifyInclusion(
      hexToBytes(proof.leaf_hash),
      proof.leaf_index,
      proof.batch.tree_size,
      proof.merkle_proof.map(hexToBytes),
      hexToBytes(proof.batch.root),
    ),
  );
  if (ok) return "valid";
  failures.push(`merkle: the audit path does not lead from leaf ${proof.leaf_index} to the batch root`);
  return "invalid";
}

async function batchSignatureCheck(
  proof: StampProof,
  options: VerifyProofOptions,
  failures: string[],
): Promise<{ batch_signature: ProofCheck["batch_signature"]; version?: 1 | 2 }> {
  const key = proof.batch.public_key;
  const version = await signatureVersion(proof.batch);
  if (!version) {
    failures.push(`batch signature: does not verify against ${key}`);
    return { batch_signature: "invalid" };
  }
  if (options.trustedServiceKeys && !options.trustedServiceKeys.includes(key)) {
    failures.push(`batch signature: key ${key} is not a trusted service key`);
    return { batch_signature: "untrusted_key", version };
  }
  // A version 1 signature leaves sealed_at unsigned: the period is checked against a time the
  // proof claims, which is why a verifier reports that version's members as unsigned.
  const ringProblem =
    options.keyRing && ringKeyProblem(options.keyRing, "service", key, proof.batch.sealed_at);
  if (ringProblem) {
    failures.push(`batch signature: ${ringProblem}`);
    return { batch_signature: "untrusted_key", version };
  }
  return { batch_signature: "valid", version };
}

/** 2 when the signature covers the whole batch, 1 when only its root (older batches), else null. */
async function signatureVersion(batch: StampProof["batch"]): Promise<1 | 2 | null> {
  const { public_key: key, signature, root } = batch;
  // zip215 off: strict RFC 8032, the verdicts of OpenSSL on the server.
  const verifies = (message: () => Uint8Array) =>
    Promise.resolve()
      .then(() => verifyAsync(hexToBytes(signature), message(), hexToBytes(key.slice(8)), { zip215: false }))
      .catch(() => false);
  if (await verifies(() => proofBatchSigningMessage(batch))) return 2;
  return (await verifies(() => hexToBytes(root))) ? 1 : null;
}

async function logCheck(
  proof: StampProof,
  options: VerifyProofOptions,
  failures: string[],
): Promise<Pick<ProofCheck, "log" | "checkpoint">> {
  const trustedLogKeys = options.trustedLogKeys ?? (options.keyRing && ringVerifierKeys(options.keyRing));
  if (!trustedLogKeys) return { log: "not_checked" };
  if (!proof.log) {
    failures.push("log: the proof has no log inclusion yet");
    return { log: "absent" };
  }
  try {
    const checkpoint = await verifyCheckpoint(proof.log.checkpoint, trustedLogKeys);
    const included =
      checkpoint.treeSize === proof.log.tree_size &&
      verifyInclusion(
        leafHash(hexToBytes(proof.batch.root)),
        proof.log.index,
        proof.log.tree_size,
        proof.log.inclusion_proof.map(hexToBytes),
        checkpoint.rootHash,
      );
    if (included) return { log: "valid", checkpoint };
    failures.push(`log: the batch root is not entry ${proof.log.index} of the signed checkpoint`);
  } catch (err) {
    // A checkpoint that does not parse or verify (CheckpointError), or malformed hex in the proof.
    failures.push(`log: ${(err as Error).message}`);
  }
  return { log: "invalid" };
}

function safe(check: () => boolean): boolean {
  try {
    return check();
  } catch {
    return false;
  }
}

/** What a stamp's proof shows offline: its anchor states and whether it is sealed and logged. */
export interface ProofEvidence {
  anchors: AnchorState[];
  /** Leaf, audit path and batch signature hold. */
  sealed: boolean;
  /** Sealed, and the root's inclusion in a checkpoint signed by a trusted log key holds. */
  logged: boolean;
}

/**
 * The evidence of a stamp as far as its proof shows it offline: when the proof fails, every
 * anchor is `failed` (the states are about some other batch); when it holds, the `log` anchor is
 * confirmed by the verified inclusion (with `trustedLogKeys`), the others are as the service
 * reported them in the proof.
 */
export async function proofEvidence(
  stamp: StampDocument,
  proof: StampProof,
  options: VerifyProofOptions,
): Promise<ProofEvidence> {
  const check = await verifyStampProof(stamp, proof, options);
  const sealed = check.leaf === "valid" && check.merkle === "valid" && check.batch_signature === "valid";
  const logged = sealed && check.log === "valid";
  const anchors = stamp.anchors.map((type): AnchorState => {
    if (!check.valid) return { type, status: "failed", reason: `proof: ${check.failures[0]}` };
    const reported = proof.anchors.find((a) => a.type === type) ?? { type, status: "pending" };
    if (type !== "log" || !logged) return reported;
    return {
      type,
      status: "confirmed",
      reference: String(proof.log!.index),
      confirmed_at: reported.confirmed_at ?? proof.batch.sealed_at,
    };
  });
  return { anchors, sealed, logged };
}
