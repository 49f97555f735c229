import type { Config } from "../../config.js";
import { type Decimal, decimal, formatDecimal, multiply, subtract, times } from "./decimal.js";

/** Where fees go when VAULT_FEE_RECIPIENT is unset (development and tests only; production requires it). */
export const devFeeRecipient = "stampd-dev-fee-recipient";

/** The fee schedule of GET /vault/fees, parsed once from configuration. */
export interface FeeSchedule {
  createFee: Decimal;
  heartbeatFee: Decimal;
  batchDiscount: Decimal;
  currency: string;
  recipient: string;
}

export function feeSchedule(
  config: Pick<
    Config,
    | "VAULT_CREATE_FEE"
    | "VAULT_HEARTBEAT_FEE"
    | "VAULT_BATCH_DISCOUNT"
    | "VAULT_FEE_CURRENCY"
    | "VAULT_FEE_RECIPIENT"
  >,
): FeeSchedule {
  return {
    createFee: decimal(config.VAULT_CREATE_FEE),
    heartbeatFee: decimal(config.VAULT_HEARTBEAT_FEE),
    batchDiscount: decimal(config.VAULT_BATCH_DISCOUNT),
    currency: config.VAULT_FEE_CURRENCY,
    recipient: config.VAULT_FEE_RECIPIENT ?? devFeeRecipient,
  };
}

/**
 * n × heartbeat_fee × (1 − batch_discount), exact (no rounding: the product keeps every digit).
 * The discount is for batching, so it needs at least two distinct vaults: a batch of one costs
 * what a single heartbeat costs, and the batch endpoint is no cheaper way to renew one vault.
 */
export function batchCost(schedule: FeeSchedule, n: number): Decimal {
  const undiscounted = times(schedule.heartbeatFee, n);
  if (n < 2) return undiscounted;
  return multiply(undiscounted, subtract(decimal("1"), schedule.batchDiscount));
}

/** GET /vault/fees: amounts as decimal text with at least two decimals. */
export function describeFees(schedule: FeeSchedule) {
  return {
    create_fee: formatDecimal(schedule.createFee),
    heartbeat_fee: formatDecimal(schedule.heartbeatFee),
    batch_discount: formatDecimal(schedule.batchDiscount),
    currency: schedule.currency,
    fee_recipient: schedule.recipient,
  };
}
