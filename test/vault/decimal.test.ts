import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { add, compare, decimal, formatDecimal, parseDecimal } from "../../server/vault/fees/decimal.js";
import { batchCost, describeFees, feeSchedule } from "../../server/vault/fees/schedule.js";

describe("decimal amounts", () => {
  it.each([
    ["0.5", "0.50"],
    ["12", "12.00"],
    ["0.297", "0.297"],
    ["1.350000", "1.35"],
    ["0.000000000000000001", "0.000000000000000001"],
  ])("formats %s as %s", (given, want) => {
    expect(formatDecimal(decimal(given))).toBe(want);
  });

  it.each(["-1", "1e3", " 1", "1.", ".5", "0x10", "1.0000000000000000001"])("refuses %j", (text) => {
    expect(parseDecimal(text)).toBeUndefined();
  });

  it("adds exactly where floating point would not", () => {
    let total = decimal("0");
    for (let i = 0; i < 10; i++) total = add(total, decimal("0.1"));
    expect(formatDecimal(total)).toBe("1.00");
    expect(formatDecimal(add(decimal("0.1"), decimal("0.2")))).toBe("0.30");
  });

  it("compares across scales", () => {
    expect(compare(decimal("1.35"), decimal("1.350"))).toBe(0);
    expect(compare(decimal("1.349999"), decimal("1.35"))).toBe(-1);
    expect(compare(decimal("2"), decimal("1.99"))).toBe(1);
  });
});

describe("the fee schedule", () => {
  const schedule = feeSchedule(loadConfig({ VAULT_HEARTBEAT_FEE: "0.50", VAULT_BATCH_DISCOUNT: "0.10" }));

  it("costs a batch n × fee × (1 − discount), without rounding", () => {
    expect(formatDecimal(batchCost(schedule, 3))).toBe("1.35");
    expect(formatDecimal(batchCost(schedule, 2))).toBe("0.90");
    // The discount is for batching: one vault costs a plain heartbeat.
    expect(formatDecimal(batchCost(schedule, 1))).toBe("0.50");
    const odd = feeSchedule(loadConfig({ VAULT_HEARTBEAT_FEE: "0.33", VAULT_BATCH_DISCOUNT: "0.125" }));
    expect(formatDecimal(batchCost(odd, 7))).toBe("2.02125");
  });

  it("describes itself as GET /vault/fees shows it", () => {
    expect(describeFees(schedule)).toEqual({
      create_fee: "0.00",
      heartbeat_fee: "0.50",
      batch_discount: "0.10",
      currency: "USDC",
      fee_recipient: "stampd-dev-fee-recipient",
    });
  });
});
