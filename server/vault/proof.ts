import { createHash } from "node:crypto";
import { ServiceError } from "../errors.js";
import { verifyEd25519 } from "../keys/ed25519.js";
import type { UsedProof } from "./vault-repository.js";

/** How far `signed_at` may be from the server's clock, either way (design.md, Vault). */
export const proofWindowMs = 300_000;

/** The UTF-8 text a recipient signs to retrieve a vault's key. */
export function retrievalMessage(vaultId: string, signedAt: string): string {
  return `stampd-vault-retrieve:${vaultId}:${signedAt}`;
}

const refused = (message: string) =>
  new ServiceError("permission_denied", message, "invalid_proof_of_identity");

export interface ProofInput {
  vaultId: string;
  /** `ed25519:<hex>`, the vault's recipient key. */
  recipientPublicKey: string;
  /** Base64 of the 64-byte signature. */
  proof: string;
  /** RFC 3339, exactly as signed. */
  signedAt: string;
  now: Date;
}

/**
 * Checks a proof_of_identity (fresh, signed by the recipient) and returns what makes it
 * single-use: the digest of the signed text. Keying on the text rather than the signature bytes
 * means a re-encoded signature of the same text is a replay too. Throws 403.
 */
export function checkProof(input: ProofInput): UsedProof {
  const signedAt = Date.parse(input.signedAt);
  if (Number.isNaN(signedAt)) throw refused("signed_at is not an RFC 3339 time");
  if (Math.abs(input.now.getTime() - signedAt) > proofWindowMs) {
    throw refused(`signed_at must be within ${proofWindowMs / 1000} seconds of the server's clock`);
  }
  const message = Buffer.from(retrievalMessage(input.vaultId, input.signedAt), "utf8");
  const signature = Buffer.from(input.proof, "base64");
  const valid =
    signature.length === 64 && verifyEd25519(input.recipientPublicKey, message, signature.toString("hex"));
  if (!valid) throw refused("proof_of_identity does not verify against the vault's recipient key");
  return {
    digest: createHash("sha256").update(message).digest("hex"),
    expiresAt: new Date(signedAt + proofWindowMs),
  };
}
