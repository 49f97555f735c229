import { ulid } from "ulid";
import type { Signer } from "../../keys/ed25519.js";
import { signReceipt } from "./receipt.js";

export interface IssueRequest {
  amount: string;
  currency: string;
  recipient: string;
  issuedAt: Date;
  expiresInSeconds: number;
}

/** A new single-use receipt (`rcp_<ULID>`) signed by `issuer`. */
export function issueReceipt(issuer: Signer, request: IssueRequest): string {
  const expiresAt = new Date(request.issuedAt.getTime() + request.expiresInSeconds * 1000);
  return signReceipt(
    {
      id: `rcp_${ulid(request.issuedAt.getTime())}`,
      amount: request.amount,
      currency: request.currency,
      recipient: request.recipient,
      issued_at: request.issuedAt.toISOString(),
      expires_at: expiresAt.toISOString(),
    },
    issuer,
  );
}
