import { createHash } from "node:crypto";
import { invalid, ServiceError } from "../errors.js";
import { verifyEd25519 } from "../keys/ed25519.js";
import type { UsedProof, VaultRecord } from "./vault-repository.js";

/** How far `signed_at` may be from the server's clock, either way (design.md, Vault). */
export const proofWindowMs = 300_000;

/** The fewest random bytes an owner-bound vault's retrieval token may have (128 bits). */
export const minTokenBytes = 16;

/**
 * A used token of an owner-bound vault is never forgotten: the vault may be retrieved again at any
 * time until it is burned, so a token kept for less could be replayed after it was purged.
 */
const keptForGood = new Date("9999-12-31T23:59:59.999Z");

/** The UTF-8 text a recipient signs to retrieve a vault's key. */
export function retrievalMessage(vaultId: string, signedAt: string): string {
  return `stampd-vault-retrieve:${vaultId}:${signedAt}`;
}

/** What a retrieval presents: the signature and its time, or an owner-bound vault's token. */
export interface ProofOfIdentity {
  /** Base64: a 64-byte Ed25519 signature, or at least 16 random bytes. */
  proofOfIdentity: string;
  /** RFC 3339, exactly as signed; required for a vault with a recipient key only. */
  signedAt?: string;
}

const refused = (message: string) =>
  new ServiceError("permission_denied", message, "invalid_proof_of_identity");

/**
 * Checks a proof_of_identity for `vault` and returns what makes it single-use (its digest is
 * recorded in the transaction that reads the key). The caller has already checked that an
 * owner-bound vault is the caller's own. Throws 400 (signed_at missing) or 403.
 */
export function checkProof(
  vault: Pick<VaultRecord, "id" | "recipientPublicKey">,
  proof: ProofOfIdentity,
  now: Date,
): UsedProof {
  if (vault.recipientPublicKey === null) return checkToken(vault.id, proof.proofOfIdentity);
  if (proof.signedAt === undefined) {
    throw invalid("request validation failed", [
      { path: "/body/signed_at", message: "is required for a vault with a recipient_public_key" },
    ]);
  }
  return checkSignature(vault.id, vault.recipientPublicKey, proof.proofOfIdentity, proof.signedAt, now);
}

/**
 * A recipient vault: a fresh signature by the recipient key. Keying the record on the signed text
 * rather than the signature bytes means a re-encoded signature of the same text is a replay too.
 */
function checkSignature(
  vaultId: string,
  recipientPublicKey: string,
  proof: string,
  signedAtText: string,
  now: Date,
): UsedProof {
  const signedAt = Date.parse(signedAtText);
  if (Number.isNaN(signedAt)) throw refused("signed_at is not an RFC 3339 time");
  if (Math.abs(now.getTime() - signedAt) > proofWindowMs) {
    throw refused(`signed_at must be within ${proofWindowMs / 1000} seconds of the server's clock`);
  }
  const message = Buffer.from(retrievalMessage(vaultId, signedAtText), "utf8");
  const signature = Buffer.from(proof, "base64");
  const valid =
    signature.length === 64 && verifyEd25519(recipientPublicKey, message, signature.toString("hex"));
  if (!valid) throw refused("proof_of_identity does not verify against the vault's recipient key");
  return {
    digest: createHash("sha256").update(message).digest("hex"),
    expiresAt: new Date(signedAt + proofWindowMs),
  };
}

/**
 * An owner-bound vault: the owner's API key authorizes, and the token makes the request
 * single-use, so a captured request cannot be replayed. The record is keyed on the decoded bytes
 * and the vault id: another spelling of the same bytes is the same token, and a prefix no
 * signature text has keeps tokens and signed texts apart.
 */
function checkToken(vaultId: string, proof: string): UsedProof {
  const token = Buffer.from(proof, "base64");
  if (token.length < minTokenBytes) {
    throw refused(
      `proof_of_identity must be at least ${minTokenBytes} random bytes for an owner-bound vault`,
    );
  }
  const digest = createHash("sha256")
    .update(`stampd-vault-retrieve-token:${vaultId}:`)
    .update(token)
    .digest("hex");
  return { digest, expiresAt: keptForGood };
}
