import { z } from "zod";
import { parseIJson } from "../../../core/i-json.js";
import { jcs } from "../../../core/jcs.js";
import { type Signer, verifyEd25519 } from "../../keys/ed25519.js";
import { amountPattern } from "./decimal.js";

/**
 * Fee receipts: `rcpt1.<base64url(payload)>.<base64url(signature)>`. The payload is the JCS
 * (RFC 8785) text of `{id, amount, currency, recipient, issued_at, expires_at}`; the signature is
 * an Ed25519 signature by the issuer over exactly those payload bytes.
 */
export const receiptPayloadSchema = z.object({
  id: z.string().regex(/^[\x21-\x7E]{1,128}$/),
  amount: z.string().regex(amountPattern),
  currency: z.string().min(1).max(12),
  recipient: z.string().min(1).max(128),
  issued_at: z.iso.datetime({ offset: true }),
  expires_at: z.iso.datetime({ offset: true }),
});

export type ReceiptPayload = z.infer<typeof receiptPayloadSchema>;

export interface DecodedReceipt {
  payloadBytes: Buffer;
  /** 128 lowercase hex characters. */
  signatureHex: string;
}

const format = /^rcpt1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{86})$/;

export function signReceipt(payload: ReceiptPayload, issuer: Signer): string {
  const payloadBytes = Buffer.from(jcs(payload), "utf8");
  const signature = Buffer.from(issuer.sign(payloadBytes), "hex");
  return `rcpt1.${payloadBytes.toString("base64url")}.${signature.toString("base64url")}`;
}

/** Splits a receipt into its signed bytes and signature; undefined when it is not in the format. */
export function decodeReceipt(text: string): DecodedReceipt | undefined {
  const match = format.exec(text);
  if (!match) return undefined;
  const signature = Buffer.from(match[2]!, "base64url");
  if (signature.length !== 64) return undefined;
  return { payloadBytes: Buffer.from(match[1]!, "base64url"), signatureHex: signature.toString("hex") };
}

/** Which of `issuers` (`ed25519:<hex>`) signed the payload; undefined when none did. */
export function issuerOf(receipt: DecodedReceipt, issuers: string[]): string | undefined {
  return issuers.find((key) => verifyEd25519(key, receipt.payloadBytes, receipt.signatureHex));
}

/**
 * The payload, once its signature is trusted; undefined when it is not the receipt object. Read
 * as I-JSON (core/i-json.ts): a payload naming `amount` twice would show JSON.parse the last one
 * and the issuer's own reader perhaps the first, so the amount paid would depend on who reads it.
 */
export function parsePayload(bytes: Buffer): ReceiptPayload | undefined {
  try {
    const parsed = receiptPayloadSchema.safeParse(parseIJson(bytes.toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
