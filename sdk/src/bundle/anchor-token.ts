import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { fromBase64 } from "../../../core/base64.js";
import type { StampProof } from "../../../core/stamp-proof.js";
import {
  TimestampTokenError,
  type VerifiedTimestamp,
  verifyTimestampSignature,
  verifyTimestampToken,
} from "./timestamp-token.js";

/** What a verified `rfc3161` anchor token says, and whether its TSA was checked against a CA. */
export interface VerifiedAnchorToken extends VerifiedTimestamp {
  /** `verified`: the TSA certificate is issued by the given CA; `not_checked`: no CA was given. */
  chain: "verified" | "not_checked";
}

export interface VerifyAnchorTokenOptions {
  /** PEM of the CA the outside TSA's certificate must be issued by; absent: the issuer is not checked. */
  trustedCaPem?: string | undefined;
}

/**
 * Verifies offline the `evidence` of a stamp proof's confirmed `rfc3161` anchor: the outside TSA's
 * DER `TimeStampToken`, which the service obtained by sending the batch root as a SHA-256 digest
 * (server/anchors/rfc3161-anchor.ts). Its SHA-256 must be the anchor's `reference`, its
 * `messageImprint` the batch root under SHA-256, and its CMS signature must verify with the
 * time-stamping certificate it carries (valid at `genTime`); with `trustedCaPem`, that certificate
 * must be issued by it. The same checks as `openssl ts -verify -token_in -digest <root> -CAfile`.
 * That the stamp is a leaf of that root is the proof's business (`verifyStampProof`). Throws
 * `TimestampTokenError` naming the first check that fails.
 *
 * @example
 * const proof = await client.stamps.proof(stampId);
 * const { genTime, chain } = await verifyRfc3161Anchor(proof, { trustedCaPem: await readFile("tsa-ca.pem", "utf8") });
 */
export async function verifyRfc3161Anchor(
  proof: StampProof,
  options: VerifyAnchorTokenOptions = {},
): Promise<VerifiedAnchorToken> {
  const anchor = proof.anchors.find((a) => a.type === "rfc3161");
  if (anchor?.status !== "confirmed" || !anchor.evidence) {
    throw new TimestampTokenError("the proof holds no token of a confirmed rfc3161 anchor");
  }
  let token: Uint8Array;
  try {
    token = fromBase64(anchor.evidence);
  } catch {
    throw new TimestampTokenError("the anchor's evidence is not base64");
  }
  if (bytesToHex(sha256(token)) !== anchor.reference?.toLowerCase()) {
    throw new TimestampTokenError("the token is not the one the anchor's reference (its SHA-256) names");
  }
  const { trustedCaPem } = options;
  const verified = trustedCaPem
    ? await verifyTimestampToken(token, "sha256", proof.batch.root, trustedCaPem)
    : await verifyTimestampSignature(token, "sha256", proof.batch.root);
  return { ...verified, chain: trustedCaPem ? "verified" : "not_checked" };
}
