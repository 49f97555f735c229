import { hexToBytes } from "@noble/hashes/utils.js";
import { type BatchMerkle, batchSigningMessage, inBatch } from "./batch-signature.js";
import { formatProblem, STAMP_FORMAT } from "./format.js";
import { type RingKey, ringKeyProblem } from "./key-ring.js";
import { signedPayload } from "./payload.js";
import { trustScore } from "./trust.js";
import type { AnchorState, HashAlgorithm, StampDocument, VerifyDetails, VerifyResult } from "./types.js";

/** A digest of the document supplied for comparison. */
export interface SuppliedHash {
  algorithm: HashAlgorithm;
  hex: string;
}

/**
 * What "a valid stamp" means, in one place: the server's verification and the SDK's offline
 * `verifyStamp` both call this, each with its own cryptography (node:crypto, @noble).
 */
export interface CheckOptions {
  /** Ed25519 verification: is `signatureHex` a signature of `message` by `publicKey` (`ed25519:<hex>`)? */
  verifySignature(publicKey: string, message: Uint8Array, signatureHex: string): boolean | Promise<boolean>;
  /** SHA-256 Merkle hashing for batch signatures; absent: the portable @noble one. */
  merkle?: BatchMerkle;
  /** The digest of the supplied document; absent when none was supplied (`content_hash: not_checked`). */
  content?: SuppliedHash | null;
  /** Service keys to accept; absent: the embedded `service_public_key` is taken as given. */
  trustedServiceKeys?: readonly string[];
  /**
   * The deployment's key ring (`GET /keys`): a service key is trusted for the stamps it signed
   * within its period (core/key-ring.ts). Checked as well as `trustedServiceKeys` when both are given.
   */
  keyRing?: readonly RingKey[];
  /** Whose keys `trustedServiceKeys` and `keyRing` are, for the failure text ("this deployment"). */
  trustedKeysOwner?: string;
  /** The current state of each anchor; absent: every requested anchor is reported `pending`. */
  anchorStates?(document: StampDocument): AnchorState[] | Promise<AnchorState[]>;
  /** Whether the stamp is sealed in a signed batch and that batch logged; absent: neither is known. */
  batchEvidence?(document: StampDocument): BatchEvidence | Promise<BatchEvidence>;
}

/** What is proven about a stamp's proof batch (`details.sealed`, `details.logged`). */
export interface BatchEvidence {
  sealed: boolean;
  logged: boolean;
}

/** Verifies a parsed stamp document; never throws for a bad document, it reports it. */
export async function checkStamp(stamp: unknown, options: CheckOptions): Promise<VerifyResult> {
  const problem = formatProblem(stamp);
  if (problem !== null) return invalidFormat(stamp, problem);
  const document = stamp as StampDocument;
  const failures: string[] = [];
  const payload = signedPayload(document);
  const service_signature = await serviceSignature(document, payload, options, failures);
  const author_signature = await authorSignature(document, payload, options, failures);
  const content_hash = contentHash(document, options.content, failures);
  const anchors = options.anchorStates
    ? await options.anchorStates(document)
    : document.anchors.map((type): AnchorState => ({ type, status: "pending" }));
  for (const anchor of anchors) {
    if (anchor.status === "failed") failures.push(`anchor ${anchor.type}: ${anchor.reason}`);
  }
  const batch = (await options.batchEvidence?.(document)) ?? { sealed: false, logged: false };
  const { sealed } = batch;
  // A confirmed `log` anchor is the log inclusion itself: the two always read the same.
  const logged = batch.logged || anchors.some((a) => a.type === "log" && a.status === "confirmed");
  const signature_valid = service_signature === "valid" && author_signature !== "invalid";
  const trust_score = trustScore({
    serviceSignature: service_signature === "valid",
    authorSignature: author_signature === "valid",
    sealed,
    logged,
    anchors,
  });
  return {
    is_valid: signature_valid && content_hash !== "mismatch",
    signature_valid,
    // Null, not false, when there was nothing to compare: false reads as a mismatch.
    content_hash_valid: content_hash === "not_checked" ? null : content_hash === "match",
    trust_score,
    trust_threshold: document.trust_threshold,
    // Nothing verified is never met: a threshold of 0 is not met by a signature that fails.
    trust_met: signature_valid && trust_score >= document.trust_threshold,
    confirmed_anchors: anchors.filter((a) => a.status === "confirmed").length,
    pending_anchors: anchors.filter((a) => a.status === "pending").length,
    details: {
      format: "valid",
      service_signature,
      author_signature,
      content_hash,
      sealed,
      logged,
      anchors,
      failures,
    },
  };
}

async function serviceSignature(
  document: StampDocument,
  payload: Uint8Array,
  options: CheckOptions,
  failures: string[],
): Promise<VerifyDetails["service_signature"]> {
  const key = document.service_public_key;
  const problem = await serviceSignatureProblem(document, payload, options);
  if (problem !== null) {
    failures.push(`service signature: ${problem}`);
    return "invalid";
  }
  if (options.trustedServiceKeys && !options.trustedServiceKeys.includes(key)) {
    failures.push(
      `service signature: key ${key} is not a service key of ${options.trustedKeysOwner ?? "the trusted set"}`,
    );
    return "untrusted_key";
  }
  const ringProblem =
    options.keyRing &&
    ringKeyProblem(options.keyRing, "service", key, document.created_at, options.trustedKeysOwner);
  if (ringProblem) {
    failures.push(`service signature: ${ringProblem}`);
    return "untrusted_key";
  }
  return "valid";
}

/**
 * Why the service key's signature does not hold, or null when it does: either its own signature
 * over the payload, or the batch's signature over a Merkle root the payload's leaf leads to.
 */
async function serviceSignatureProblem(
  document: StampDocument,
  payload: Uint8Array,
  options: CheckOptions,
): Promise<string | null> {
  const key = document.service_public_key;
  const { service, service_batch: batch } = document.signatures;
  if (!batch) {
    return (await options.verifySignature(key, payload, service as string))
      ? null
      : `does not verify against ${key}`;
  }
  if (!inBatch(batch, payload, options.merkle)) {
    return `its batch audit path does not lead from this stamp (leaf ${batch.leaf_index} of ${batch.tree_size}) to root ${batch.root}`;
  }
  const message = batchSigningMessage(batch.tree_size, hexToBytes(batch.root));
  return (await options.verifySignature(key, message, batch.signature))
    ? null
    : `the batch root's signature does not verify against ${key}`;
}

async function authorSignature(
  document: StampDocument,
  payload: Uint8Array,
  options: CheckOptions,
  failures: string[],
): Promise<VerifyDetails["author_signature"]> {
  const key = document.author_public_key;
  const signature = document.signatures.author;
  if (key === null && signature === null) return "absent";
  if (key === null) {
    failures.push("author signature: present, but the stamp names no author_public_key");
    return "invalid";
  }
  if (signature === null) {
    failures.push(`author signature: missing for author ${key}`);
    return "invalid";
  }
  if (await options.verifySignature(key, payload, signature)) return "valid";
  failures.push(`author signature: does not verify against ${key}`);
  return "invalid";
}

function contentHash(
  document: StampDocument,
  supplied: SuppliedHash | null | undefined,
  failures: string[],
): VerifyDetails["content_hash"] {
  if (!supplied) return "not_checked";
  const recorded = document.document;
  if (supplied.algorithm !== recorded.algorithm) {
    failures.push(
      `content hash mismatch: a ${supplied.algorithm} hash cannot match the stamp's ${recorded.algorithm} hash`,
    );
    return "mismatch";
  }
  if (supplied.hex === recorded.hash) return "match";
  failures.push(
    `content hash mismatch: the file hashes to ${supplied.hex}, the stamp records ${recorded.hash}`,
  );
  return "mismatch";
}

/**
 * A document that is not `stampd.stamp/v1`: the spec reports its signatures invalid; nothing it
 * claims (anchors, content) is examined, so the content hash is not checked and the score is 0.
 */
/** The result for what is not a stamp document: `problem` says why. */
export function invalidFormat(stamp: unknown, problem: string): VerifyResult {
  const claimed = (stamp as { trust_threshold?: unknown } | null)?.trust_threshold;
  const trust_threshold =
    Number.isInteger(claimed) && (claimed as number) >= 0 && (claimed as number) <= 100
      ? (claimed as number)
      : 0;
  return {
    is_valid: false,
    signature_valid: false,
    content_hash_valid: null,
    trust_score: 0,
    trust_threshold,
    trust_met: false,
    confirmed_anchors: 0,
    pending_anchors: 0,
    details: {
      format: "invalid",
      service_signature: "invalid",
      author_signature: "invalid",
      content_hash: "not_checked",
      sealed: false,
      logged: false,
      anchors: [],
      failures: [`format: not a ${STAMP_FORMAT} document: ${problem}`],
    },
  };
}
