import type { Clock } from "../../clock.js";
import { ServiceError } from "../../errors.js";
import type { FeePayment } from "../vault-repository.js";
import { compare, type Decimal, formatDecimal, parseDecimal } from "./decimal.js";
import type { TrustedIssuers } from "./issuer-keys.js";
import { decodeReceipt, issuerOf, parsePayload, type ReceiptPayload } from "./receipt.js";
import type { FeeSchedule } from "./schedule.js";

const unacceptable = (message: string, reason: ConstructorParameters<typeof ServiceError>[2]) =>
  new ServiceError("unprocessable", message, reason);

/** How far a receipt's `issued_at` may lie from this server's clock (docs/configuration.md, Vault). */
export interface ReceiptTimeLimits {
  /** An `issued_at` later than now by more than this is refused: the issuer's clock is not ours. */
  FEE_RECEIPT_CLOCK_SKEW_SECONDS: number;
  /** A receipt issued longer ago than this is refused, whatever its `expires_at` says. */
  FEE_RECEIPT_MAX_AGE_SECONDS: number;
}

/**
 * Checks that a fee receipt pays for something: issued by a trusted issuer, in the configured
 * currency, to the configured recipient, issued neither in the future nor too long ago, not
 * expired, and for at least `cost`. Whether it was used before is decided by the store when the
 * payment is recorded, atomically with what it pays for.
 */
export class ReceiptChecker {
  constructor(
    private readonly schedule: FeeSchedule,
    private readonly issuers: TrustedIssuers,
    private readonly clock: Clock,
    private readonly limits: ReceiptTimeLimits,
  ) {}

  /** The payment to record with the work; throws 422 (`fee_receipt_*`, `fee_insufficient`). */
  async accept(
    receipt: string,
    cost: Decimal,
    purpose: { what: string; usedFor: string },
  ): Promise<FeePayment> {
    const decoded = decodeReceipt(receipt);
    if (!decoded) throw unacceptable("fee receipt is not in the rcpt1 format", "fee_receipt_invalid");
    const issuer = issuerOf(decoded, this.issuers());
    if (!issuer) {
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
    this.checkTimes(payload, now);
    if (compare(amount, cost) < 0) {
      throw unacceptable(
        `fee receipt covers ${formatDecimal(amount)} ${currency}; ${purpose.what} costs ${formatDecimal(cost)} ${currency}`,
        "fee_insufficient",
      );
    }
    return {
      // Each issuer picks its own ids: the store keeps them apart by issuer, so one issuer's id
      // can never consume (or be consumed by) another issuer's receipt of the same id.
      receiptId: `${issuer}/${payload.id}`,
      legacyReceiptId: payload.id,
      amount: formatDecimal(amount, 0),
      currency,
      recipient,
      usedAt: now,
      usedFor: purpose.usedFor,
    };
  }

  /**
   * `issued_at` within the clock skew of now (a receipt from the future would stay usable past
   * the age bound), `expires_at` after it, and neither expiry nor the age bound passed: a
   * receipt signed long ago with a far expiry is refused once FEE_RECEIPT_MAX_AGE_SECONDS passed.
   */
  private checkTimes(payload: ReceiptPayload, now: Date): void {
    const issued = Date.parse(payload.issued_at);
    const { FEE_RECEIPT_CLOCK_SKEW_SECONDS: skew, FEE_RECEIPT_MAX_AGE_SECONDS: maxAge } = this.limits;
    if (Date.parse(payload.expires_at) <= now.getTime()) {
      throw unacceptable(`fee receipt expired at ${payload.expires_at}`, "fee_receipt_expired");
    }
    if (now.getTime() - issued > maxAge * 1000) {
      throw unacceptable(
        `fee receipt issued at ${payload.issued_at}, more than ${maxAge} s ago (receipts are accepted for at most that long)`,
        "fee_receipt_expired",
      );
    }
    if (issued > now.getTime() + skew * 1000) {
      throw unacceptable(
        `fee receipt issued at ${payload.issued_at}, more than ${skew} s after this server's time ${now.toISOString()}`,
        "fee_receipt_invalid",
      );
    }
    if (Date.parse(payload.expires_at) <= issued) {
      throw unacceptable(
        `fee receipt expires at ${payload.expires_at}, not after it was issued (${payload.issued_at})`,
        "fee_receipt_invalid",
      );
    }
  }
}
