/**
 * Exact decimal arithmetic for fees. An amount is `units / 10^scale` with BigInt units, so sums,
 * products and comparisons are exact: nothing is ever rounded. Inputs carry at most 15 integer
 * and 18 fractional digits (enough for 18-decimal tokens, and below 10^15 of any currency);
 * products keep every digit (scale adds up).
 */
export interface Decimal {
  readonly units: bigint;
  readonly scale: number;
}

/** The most fractional digits an amount may have; totals are counted in units of 10^-18. */
const maxFractionDigits = 18;

/**
 * An amount (a receipt's, a configured fee) as the spec bounds it: below 10^15, at most 18
 * decimals. The bound keeps one receipt from dwarfing every other and each total a plain integer.
 */
export const amountPattern = /^(\d{1,15})(?:\.(\d{1,18}))?$/;

/** Parses `"12"` or `"0.50"`; undefined for anything else (signs, exponents, spaces, too many digits). */
export function parseDecimal(text: string): Decimal | undefined {
  const match = amountPattern.exec(text);
  if (!match) return undefined;
  const fraction = match[2] ?? "";
  return { units: BigInt(match[1]! + fraction), scale: fraction.length };
}

export function decimal(text: string): Decimal {
  const value = parseDecimal(text);
  if (!value) throw new Error(`not a decimal: ${JSON.stringify(text)}`);
  return value;
}

function align(a: Decimal, b: Decimal): [bigint, bigint, number] {
  const scale = Math.max(a.scale, b.scale);
  return [a.units * 10n ** BigInt(scale - a.scale), b.units * 10n ** BigInt(scale - b.scale), scale];
}

export function add(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  return { units: x + y, scale };
}

/** a − b; callers only subtract a smaller amount (1 − discount), so the result is never negative. */
export function subtract(a: Decimal, b: Decimal): Decimal {
  const [x, y, scale] = align(a, b);
  if (y > x) throw new Error("negative decimal");
  return { units: x - y, scale };
}

export function multiply(a: Decimal, b: Decimal): Decimal {
  return { units: a.units * b.units, scale: a.scale + b.scale };
}

export function times(a: Decimal, n: number): Decimal {
  return { units: a.units * BigInt(n), scale: a.scale };
}

export function compare(a: Decimal, b: Decimal): -1 | 0 | 1 {
  const [x, y] = align(a, b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export function isZero(a: Decimal): boolean {
  return a.units === 0n;
}

/** Plain text with at least `minFraction` decimals and no trailing zeros beyond them: 0.5 → "0.50". */
export function formatDecimal(a: Decimal, minFraction = 2): string {
  const digits = a.units.toString().padStart(a.scale + 1, "0");
  const whole = digits.slice(0, digits.length - a.scale);
  let fraction = digits.slice(digits.length - a.scale);
  fraction = fraction.replace(/0+$/, "").padEnd(minFraction, "0");
  return fraction ? `${whole}.${fraction}` : whole;
}

/**
 * The amount as a whole number of 10^-18 units: how fee totals are stored (TEXT of digits on
 * SQLite, NUMERIC(1000, 0) on PostgreSQL), so a total of any number of receipts stays exact and
 * readable (BigInt and NUMERIC have no ceiling a sum of amounts below 10^15 could reach).
 */
export function toMinorUnits(a: Decimal): bigint {
  if (a.scale > maxFractionDigits) throw new Error(`more than ${maxFractionDigits} decimals`);
  return a.units * 10n ** BigInt(maxFractionDigits - a.scale);
}

/** Reads a stored count of 10^-18 units (digits only, any length); undefined for anything else. */
export function parseMinorUnits(text: string): Decimal | undefined {
  return /^\d+$/.test(text) ? { units: BigInt(text), scale: maxFractionDigits } : undefined;
}
