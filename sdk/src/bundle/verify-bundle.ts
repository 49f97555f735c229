import { fromBase64 } from "../../../core/base64.js";
import { type RingKey, ringTsaCaPem, ringVerifierKeys } from "../../../core/key-ring.js";
import { verifyStamp } from "../../../core/stamp.js";
import { type ProofCheck, type StampProof, verifyStampProof } from "../../../core/stamp-proof.js";
import type { AnchorState, StampDocument, VerifyResult } from "../../../core/types.js";
import { type VerifiedAnchorToken, verifyRfc3161Anchor } from "./anchor-token.js";
import type { ProofBundle } from "./bundle.js";
import { checkLogConsistency } from "./log-consistency.js";
import { readStampOpenTimestamps } from "./opentimestamps.js";
import { verifyTimestampToken } from "./timestamp-token.js";

/**
 * The verdict on one part of a bundle: `absent` when the bundle does not hold it (yet: an upgrade
 * may bring it), `unverified` for evidence only the service vouches for (an anchor confirmed on a
 * chain, whose proof the service does not export, or an `rfc3161` anchor saved without its token).
 */
export type BundlePieceStatus = "valid" | "invalid" | "absent" | "unverified";

export interface BundlePiece {
  name: string;
  status: BundlePieceStatus;
  detail: string;
}

export interface VerifyBundleOptions {
  /** The original document (required to check its hash; without it `document` is absent). */
  document?: Uint8Array | Blob | undefined;
  /** Service keys (`ed25519:<hex>`) to accept; absent: the key the stamp embeds is taken as given. */
  trustedServiceKeys?: string[] | undefined;
  /** Log verifier keys; absent: the ring's log keys, else the `log.verifier_key` the bundle holds. */
  trustedLogKeys?: string[] | undefined;
  /**
   * The deployment's key ring (`GET /keys`): each service key trusted for its own period (a stamp
   * from before a rotation verifies, a revoked key's later ones do not), its log keys for the log,
   * its TSA keys for the RFC 3161 token (each certificate for its own period).
   */
  keyRing?: readonly RingKey[] | undefined;
  /**
   * PEM of the CAs the TSA certificate must chain to; absent: the CAs of the `keyRing`'s TSA keys
   * (the token's certificate must then be one of them, in its period), else the `timestamp.ca_pem`
   * the bundle holds.
   */
  trustedTsaCaPem?: string | undefined;
  /**
   * PEM of the CA the outside TSA of the `rfc3161` anchor must chain to; absent: its token's
   * signature is checked but not its issuer (the bundle holds no CA for that TSA).
   */
  trustedAnchorTsaCaPem?: string | undefined;
}

export interface BundleCheck {
  /** No part is invalid, the stamp verifies and, given the document, its hash matches. */
  valid: boolean;
  /**
   * Who vouches for the service key: `pinned` (one of `trustedServiceKeys`), `key_ring` (a key of
   * the given `keyRing` in its period), or `unknown`: the stamp is only shown to be signed by the
   * key it embeds, which anyone can make (a forger's own key, any `created_at`). A caller should
   * not take `valid` with an `unknown` signer for "made by the service".
   */
  signer: "pinned" | "key_ring" | "unknown";
  pieces: BundlePiece[];
  /** `verifyStamp` with the bundle's proof: the REST `VerifyResponse` shape, trust score included. */
  verification: VerifyResult;
}

/**
 * Verifies every part a proof bundle holds, with no network: the document's hash and the stamp's
 * signatures, the batch proof, the log inclusion under a signed checkpoint, the consistency of that
 * checkpoint with the one held before, the RFC 3161 token, and the anchor evidence.
 *
 * @example
 * const bundle = parseProofBundle(await readFile("contract.pdf.stampd.json", "utf8"));
 * const check = await verifyProofBundle(bundle, { document: await openAsBlob("contract.pdf") });
 * for (const piece of check.pieces) console.log(piece.name, piece.status, piece.detail);
 */
export async function verifyProofBundle(
  bundle: ProofBundle,
  options: VerifyBundleOptions = {},
): Promise<BundleCheck> {
  const stamp = bundle.stamp.stamp_json;
  const ringLogKeys = options.keyRing && ringVerifierKeys(options.keyRing);
  const logKeys = options.trustedLogKeys ?? ringLogKeys ?? (bundle.log ? [bundle.log.verifier_key] : []);
  const proof = bundle.proof ?? undefined;
  const anchorToken = await checkAnchorToken(proof, options);
  const verification = await verifyStamp(stamp, {
    document: options.document,
    trustedServiceKeys: options.trustedServiceKeys,
    keyRing: options.keyRing,
    proof: proof && scoredProof(proof, anchorToken),
    trustedLogKeys: logKeys,
    anchors: proof
      ? undefined
      : bundle.stamp.anchors.map((a) => unproven(a, "the bundle holds no proof yet")),
  });
  const proofCheck = proof
    ? await verifyStampProof(stamp, proof, {
        trustedServiceKeys: options.trustedServiceKeys,
        trustedLogKeys: logKeys,
        keyRing: options.keyRing,
      })
    : undefined;
  const pieces = [
    ...stampPieces(verification, options),
    batchPiece(proofCheck),
    logPiece(bundle, proofCheck, options),
    await consistencyPiece(bundle, logKeys),
    await timestampPiece(bundle, stamp, options),
    ...openTimestampsPieces(bundle),
    ...anchorPieces(bundle, proofCheck, anchorToken),
  ];
  const valid = verification.is_valid && !pieces.some((p) => p.status === "invalid");
  const signer = options.trustedServiceKeys ? "pinned" : options.keyRing ? "key_ring" : "unknown";
  return { valid, signer, pieces, verification };
}

function stampPieces(result: VerifyResult, options: VerifyBundleOptions): BundlePiece[] {
  const { details } = result;
  // verifyStamp words each failure `<check>: <reason>`; a bad format is its only failure.
  const failure = (check: string) =>
    details.failures.find((f) => f.startsWith(check)) ?? details.failures[0] ?? "";
  const pinned = options.trustedServiceKeys
    ? "pinned key"
    : options.keyRing
      ? "a key of the deployment's key ring, in its period"
      : "the key the stamp embeds (not pinned)";
  return [
    {
      name: "document",
      status: { match: "valid", mismatch: "invalid", not_checked: "absent" }[
        details.content_hash
      ] as BundlePieceStatus,
      detail: {
        match: "its hash is the stamped hash",
        mismatch: "its hash is not the stamped hash",
        not_checked: "no document given",
      }[details.content_hash],
    },
    {
      name: "stamp format",
      status: details.format,
      detail: details.format === "valid" ? "stampd.stamp/v1" : failure(""),
    },
    {
      name: "service signature",
      status: details.service_signature === "valid" ? "valid" : "invalid",
      detail:
        details.service_signature === "valid" ? `verifies with ${pinned}` : failure("service signature"),
    },
    {
      name: "author signature",
      status: details.author_signature,
      detail: {
        absent: "the stamp is not signed by an identity",
        valid: "verifies with the author key the stamp names",
        invalid: failure("author signature"),
      }[details.author_signature],
    },
  ];
}

function batchPiece(check: ProofCheck | undefined): BundlePiece {
  const name = "batch proof";
  if (!check)
    return { name, status: "absent", detail: "the stamp was pending when saved: run `stampd upgrade`" };
  const ok = check.leaf === "valid" && check.merkle === "valid" && check.batch_signature === "valid";
  const failures = check.failures.filter((f) => !f.startsWith("log:"));
  if (!ok) return { name, status: "invalid", detail: failures.join("; ") };
  const unsigned = check.unsigned.length
    ? ` (a version 1 signature, over the root only: the batch's ${check.unsigned.join(", ")} are unsigned)`
    : "";
  return { name, status: "valid", detail: `leaf, audit path and batch signature hold${unsigned}` };
}

function logPiece(
  bundle: ProofBundle,
  check: ProofCheck | undefined,
  options: VerifyBundleOptions,
): BundlePiece {
  const name = "log inclusion";
  const log = bundle.proof?.log;
  if (!check || !log)
    return {
      name,
      status: "absent",
      detail: "no checkpoint covered the batch when saved: run `stampd upgrade`",
    };
  if (check.log === "valid") {
    const key = options.trustedLogKeys
      ? "a pinned log key"
      : options.keyRing
        ? "a log key of the key ring"
        : "the log key the bundle holds (not pinned)";
    return {
      name,
      status: "valid",
      detail: `entry ${log.index} of checkpoint ${log.tree_size}, signed by ${key}`,
    };
  }
  return { name, status: "invalid", detail: check.failures.filter((f) => f.startsWith("log:")).join("; ") };
}

async function consistencyPiece(bundle: ProofBundle, logKeys: string[]): Promise<BundlePiece> {
  const name = "log consistency";
  const { previous_checkpoint: older, consistency } = bundle.log ?? {};
  const newer = bundle.proof?.log?.checkpoint;
  if (!older || !consistency || !newer)
    return { name, status: "absent", detail: "no earlier checkpoint held" };
  const problem = await checkLogConsistency(older, newer, consistency, logKeys);
  if (problem) return { name, status: "invalid", detail: problem };
  return {
    name,
    status: "valid",
    detail: `checkpoint ${consistency.second} extends checkpoint ${consistency.first}`,
  };
}

async function timestampPiece(
  bundle: ProofBundle,
  stamp: StampDocument,
  options: VerifyBundleOptions,
): Promise<BundlePiece> {
  const name = "rfc3161 timestamp";
  if (!bundle.timestamp) return { name, status: "absent", detail: "no RFC 3161 token held" };
  try {
    const { keyRing, trustedTsaCaPem } = options;
    const ca = trustedTsaCaPem ?? (keyRing ? ringTsaCaPem(keyRing) : bundle.timestamp.ca_pem);
    const token = fromBase64(bundle.timestamp.token);
    const { algorithm, hash } = stamp.document;
    const { genTime } = await verifyTimestampToken(token, algorithm, hash, ca, { keyRing });
    const by = trustedTsaCaPem
      ? "a pinned CA"
      : keyRing
        ? "a TSA key of the deployment's key ring, in its period"
        : "the CA the bundle holds (not pinned)";
    return {
      name,
      status: "valid",
      detail: `the stamped hash at ${genTime.toISOString()}, TSA certified by ${by}`,
    };
  } catch (err) {
    return { name, status: "invalid", detail: (err as Error).message };
  }
}

/**
 * The OpenTimestamps proof of a `bitcoin` anchor (none for a stamp without one): its operations
 * must lead from the stamped hash to the batch root; what the calendars attest is reported, not
 * proven, since checking a Bitcoin block header needs a Bitcoin node (`ots verify`).
 */
function openTimestampsPieces(bundle: ProofBundle): BundlePiece[] {
  const name = "opentimestamps";
  const stamp = bundle.stamp.stamp_json;
  if (bundle.opentimestamps === undefined) {
    if (!stamp.anchors.includes("bitcoin")) return [];
    return [{ name, status: "absent", detail: "no calendar had answered when saved: run `stampd upgrade`" }];
  }
  try {
    const file = fromBase64(bundle.opentimestamps);
    const { calendars, bitcoinHeights } = readStampOpenTimestamps(
      file,
      stamp.document.hash,
      bundle.proof?.batch.root,
    );
    const blocks = bitcoinHeights.length
      ? `Bitcoin block ${bitcoinHeights.join(", ")} attested by a calendar (unverified: check with \`ots verify\`, which needs a Bitcoin node)`
      : "no Bitcoin attestation yet: run `stampd upgrade` in a few hours";
    const pending = calendars.length ? `; pending at ${calendars.join(", ")}` : "";
    return [
      {
        name,
        status: "unverified",
        detail: `${bundle.proof ? "leads from the stamped hash to the batch root" : "starts from the stamped hash (no batch proof held)"}; ${blocks}${pending}`,
      },
    ];
  } catch (err) {
    return [{ name, status: "invalid", detail: (err as Error).message }];
  }
}

/** The outside TSA's token of the `rfc3161` anchor, checked; undefined when the proof holds none. */
type AnchorTokenCheck = { ok: VerifiedAnchorToken } | { problem: string } | undefined;

async function checkAnchorToken(
  proof: StampProof | undefined,
  options: VerifyBundleOptions,
): Promise<AnchorTokenCheck> {
  const anchor = proof?.anchors.find((a) => a.type === "rfc3161");
  if (!proof || anchor?.status !== "confirmed" || anchor.evidence === undefined) return undefined;
  try {
    return { ok: await verifyRfc3161Anchor(proof, { trustedCaPem: options.trustedAnchorTsaCaPem }) };
  } catch (err) {
    return { problem: (err as Error).message };
  }
}

/**
 * The proof the trust score is worked out from: only what is proven here counts. The `log` anchor
 * is decided by the log inclusion; an `rfc3161` anchor by its TSA token (one that fails counts as
 * failed); any other anchor reported confirmed (a chain transaction, or an `rfc3161` anchor
 * without its token) is evidence the bundle does not hold, which anyone could write into the
 * file, so it earns nothing offline. The tokens themselves are left out of the result.
 */
function scoredProof(proof: StampProof, token: AnchorTokenCheck): StampProof {
  const anchors = proof.anchors.map(({ evidence: _, ...anchor }): AnchorState => {
    if (anchor.type === "log") return anchor;
    if (anchor.type === "rfc3161" && token) {
      if ("ok" in token) return anchor;
      return { type: anchor.type, status: "failed", reason: `its TSA token: ${token.problem}` };
    }
    return unproven(anchor, "its proof is not in the bundle");
  });
  return { ...proof, anchors };
}

/** A confirmed anchor the verifier cannot check counts as still pending, and says why. */
function unproven(anchor: AnchorState, why: string): AnchorState {
  if (anchor.status !== "confirmed") return anchor;
  return {
    type: anchor.type,
    status: "pending",
    reason: `reported confirmed${anchor.confirmed_at ? ` at ${anchor.confirmed_at}` : ""}, not proven offline: ${why}`,
  };
}

/**
 * The `log` anchor is what the log inclusion proves; the `rfc3161` anchor is proven by the outside
 * TSA's token when the proof holds it; the others are evidence the service reported (a chain
 * transaction), listed for what they are.
 */
function anchorPieces(
  bundle: ProofBundle,
  check: ProofCheck | undefined,
  token: AnchorTokenCheck,
): BundlePiece[] {
  return bundle.stamp.anchors.map((anchor): BundlePiece => {
    const name = `anchor ${anchor.type}`;
    if (anchor.type === "log") {
      const proven = check?.log === "valid";
      return proven
        ? { name, status: "valid", detail: "proven by the log inclusion" }
        : { name, status: "absent", detail: `${anchor.status}: no verified log inclusion` };
    }
    if (anchor.type === "rfc3161" && token) return anchorTokenPiece(name, token);
    if (anchor.status !== "confirmed")
      return {
        name,
        status: "absent",
        detail: `${anchor.status}${anchor.reason ? `: ${anchor.reason}` : ""}`,
      };
    return {
      name,
      status: "unverified",
      detail: `confirmed ${anchor.confirmed_at} (reference ${anchor.reference}), as the service reported it: not in the trust score offline`,
    };
  });
}

function anchorTokenPiece(name: string, token: NonNullable<AnchorTokenCheck>): BundlePiece {
  if ("problem" in token) return { name, status: "invalid", detail: `its TSA token: ${token.problem}` };
  const { genTime, signer, chain } = token.ok;
  const issuer =
    chain === "verified"
      ? "certified by a pinned CA"
      : "issuer not checked (no CA given for this TSA: --anchor-tsa-ca)";
  return {
    name,
    status: "valid",
    detail: `the batch root time-stamped at ${genTime.toISOString()} by ${signer}, ${issuer}`,
  };
}
