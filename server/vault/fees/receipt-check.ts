import type { Clock } from "../../clock.js";
import { ServiceError } from "../../errors.js";
import type { FeePayment } from "../vault-repository.js";
import { compare, type Decimal, formatDecimal, parseDecimal } from "./decimal.js";
import type { TrustedIssuers } from "./issuer-keys.js";
import { decodeReceipt, parsePayload, signedByAny } from "./receipt.js";
import type { FeeSchedule } from "./schedule.js";

const unacceptable = (message: string, reason: ConstructorParameters<typeof ServiceError>[2]) =>
  new ServiceError("unprocessable", message, reason);

/**
 * Checks that a fee receipt pays for something: issued by a trusted issuer, in the configured
 * currency, to the configured recipient, not expired, and for at least `cost`. Whether it was
 * used before is decided by the store when the payment is recorded, atomically with what it pays for.
 */
export class ReceiptChecker {
  constructor(
    private readonly schedule: FeeSchedule,
    private readonly issuers: TrustedIssuers,
    private readonly clock: Clock,
  ) {}

  /** The payment to record with the work; throws 422 (`fee_receipt_*`, `fee_insufficient`). */
  async accept(
    receipt: string,
    cost: Decimal,
    purpose: { what: string; usedFor: string },
  ): Promise<FeePayment> {
    const decoded = decodeReceipt(receipt);
    if (!decoded) throw unacceptable("fee receipt is not in the rcpt1 format", "fee_receipt_invalid");
    if (!signedByAny(decoded, this.issuers())) {
      throw unacceptable(
        "fee receipt signature does not verify against the configured issuer keys",
        "fee_receipt_invalid",
      );
    }
    const payload = parsePayload(decoded.payloadBytes);
    const amount = payload && parseDecimal(payload.amount);
    if (!payload || !amount)
      throw unacceptable(
        "fee receipt payload is not a receipt (its amount must be decimal text below 10^15 with at most 18 decimals)",
        "fee_receipt_invalid",
      );
    const { currency, recipient } = this.schedule;
    if (payload.currency !== currency || payload.recipient !== recipient) {
      throw unacceptable(
        `fee receipt is in ${payload.currency} to ${payload.recipient}; expected ${currency} to ${recipient}`,
        "fee_receipt_mismatch",
      );
    }
    const now = this.clock.now();
    if (Date.parse(payload.expires_at) <= now.getTime()) {
      throw unacceptable(`fee receipt expired at ${payload.expires_at}`, "fee_receipt_expired");
    }
    if (compare(amount, cost) < 0) {
      throw unacceptable(
        `fee receipt covers ${formatDecimal(amount)} ${currency}; ${purpose.what} costs ${formatDecimal(cost)} ${currency}`,
        "fee_insufficient",
      );
    }
    return {
      receiptId: payload.id,
      amount: formatDecimal(amount, 0),
      currency,
      recipient,
      usedAt: now,
      usedFor: purpose.usedFor,
    };
  }
}
