import { verifyAsync } from "@noble/ed25519";
import { hexToBytes } from "@noble/hashes/utils.js";
import { checkStamp, invalidFormat } from "./check.js";
import { digestDocument } from "./digest.js";
import { isStampDocument } from "./format.js";
import { DuplicateMemberError, NestingTooDeepError, parseIJson } from "./i-json.js";
import type { RingKey } from "./key-ring.js";
import { type ProofEvidence, proofEvidence, type StampProof } from "./stamp-proof.js";
import type { AnchorState, StampDocument, VerifyResult } from "./types.js";

export interface VerifyStampOptions {
  /** The original document; its hash is compared with the stamp's (`details.content_hash`). */
  document?: Uint8Array | Blob | undefined;
  /**
   * Service keys (`ed25519:<hex>`) to accept, e.g. from the deployment's documentation. Without
   * them the embedded `service_public_key` is taken as given: the stamp is then only shown to be
   * intact and consistently signed, not to come from a particular service.
   */
  trustedServiceKeys?: string[] | undefined;
  /**
   * Anchor states as the service reports them (`anchors` of GET /stamps/{id}). Offline they are
   * unknown, so by default each requested anchor counts as `pending`, as it did at creation.
   */
  anchors?: AnchorState[] | undefined;
  /**
   * The stamp's proof (`GET /stamps/{id}/proof`): checked offline (verifyStampProof), it decides the
   * anchor states instead of `anchors`, and whether the stamp is sealed in a signed batch
   * (`details.sealed`). With `trustedLogKeys` its log inclusion makes it `logged` and confirms the
   * `log` anchor; a proof that does not hold makes every anchor `failed`. Without a proof neither
   * is known offline, so the trust score counts the signatures and the given anchors only.
   */
  proof?: StampProof | undefined;
  /** Log verifier keys (`GET /log` `verifier_key`) for `proof`. */
  trustedLogKeys?: string[] | undefined;
  /**
   * The deployment's key ring (`GET /keys`, or that document saved to a file) as trust anchors:
   * the service key must be the deployment's at the stamp's `created_at` (a rotation keeps older
   * stamps valid; a revoked key's later stamps fail), and so must a proof's batch and log keys.
   */
  keyRing?: readonly RingKey[] | undefined;
}

/**
 * Verifies a stamp document (`stamp_json`, as an object or as JSON text) without any network
 * access (JSON text naming a member twice is an invalid format, RFC 7493): its format, the service and author Ed25519 signatures over its RFC 8785 canonical form,
 * and optionally the document's hash. The result has the shape of the REST `VerifyResponse`.
 * Portable: @noble/ed25519 (WebCrypto SHA-512), @noble/hashes and canonicalize only.
 *
 * @example
 * const result = await verifyStamp(stampJson, { document: await file.arrayBuffer().then((b) => new Uint8Array(b)) });
 * if (!result.is_valid) console.log(result.details.failures);
 */
export async function verifyStamp(
  stampJson: unknown,
  options: VerifyStampOptions = {},
): Promise<VerifyResult> {
  const stamp = typeof stampJson === "string" ? parseJson(stampJson) : stampJson;
  if (stamp instanceof DuplicateMemberError || stamp instanceof NestingTooDeepError) {
    return invalidFormat(undefined, stamp.message);
  }
  const content =
    options.document && isStampDocument(stamp)
      ? {
          algorithm: stamp.document.algorithm,
          hex: await digestDocument(stamp.document.algorithm, options.document),
        }
      : null;
  const { anchors, proof } = options;
  // One check of the proof serves both the anchor states and the batch evidence.
  let checked: Promise<ProofEvidence> | undefined;
  const fromProof = (document: StampDocument) => (checked ??= proofEvidence(document, proof!, options));
  return checkStamp(stamp, {
    verifySignature: verifyEd25519,
    content,
    trustedServiceKeys: options.trustedServiceKeys,
    keyRing: options.keyRing,
    trustedKeysOwner: options.keyRing && "the key ring",
    anchorStates: proof
      ? async (document) => (await fromProof(document)).anchors
      : anchors && (() => anchors),
    batchEvidence: proof ? fromProof : undefined,
  });
}

async function verifyEd25519(publicKey: string, message: Uint8Array, signatureHex: string): Promise<boolean> {
  try {
    const key = hexToBytes(publicKey.slice("ed25519:".length));
    // zip215 off: strict RFC 8032 rules, the same verdicts as OpenSSL on the server.
    return await verifyAsync(hexToBytes(signatureHex), message, key, { zip215: false });
  } catch {
    return false;
  }
}

/**
 * JSON text that does not parse is reported as an invalid format, like any other bad document;
 * so is text naming a member twice (I-JSON, RFC 7493), which other readers may read differently,
 * and text nesting deeper than MAX_JSON_DEPTH, said as such rather than as "not JSON".
 */
function parseJson(text: string): unknown {
  try {
    return parseIJson(text);
  } catch (err) {
    return err instanceof DuplicateMemberError || err instanceof NestingTooDeepError ? err : undefined;
  }
}
