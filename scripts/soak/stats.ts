/** The value at percentile `p` (0-100) of `values` (nearest rank); NaN when there is none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? sorted[0]!;
}

export const median = (values: readonly number[]): number => percentile(values, 50);

/** An RSS reading: seconds since the load started, bytes. */
export interface RssSample {
  t: number;
  bytes: number;
}

export interface FlatnessRule {
  /** Seconds from the start that do not count: heaps, caches and pools grow to their working size. */
  warmupSeconds: number;
  /** Seconds of each compared window. */
  windowSeconds: number;
  /** Largest allowed growth, as a fraction (0.1 = 10 %). */
  maxGrowth: number;
}

export interface Flatness {
  firstWindowMedian: number;
  lastWindowMedian: number;
  /** lastWindowMedian / firstWindowMedian - 1. */
  growth: number;
  pass: boolean;
}

/**
 * RSS is flat when the median of the last window is less than `maxGrowth` above the median of the
 * first window after warm-up. Medians, so one garbage collection caught at its peak decides nothing.
 */
export function judgeFlatness(samples: readonly RssSample[], rule: FlatnessRule, end: number): Flatness {
  const inWindow = (from: number, to: number) =>
    samples.filter((s) => s.t >= from && s.t <= to).map((s) => s.bytes);
  const first = inWindow(rule.warmupSeconds, rule.warmupSeconds + rule.windowSeconds);
  const last = inWindow(end - rule.windowSeconds, end);
  if (first.length === 0 || last.length === 0) throw new Error("too few RSS samples to judge flatness");
  const firstWindowMedian = median(first);
  const lastWindowMedian = median(last);
  const growth = lastWindowMedian / firstWindowMedian - 1;
  return { firstWindowMedian, lastWindowMedian, growth, pass: growth < rule.maxGrowth };
}

/** Parses a duration such as `30m`, `2m`, `90s`, `1h` or plain seconds, into seconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`not a duration: "${text}" (e.g. 30m, 90s, 1h)`);
  const unit = { s: 1, m: 60, h: 3600 }[(match[2] ?? "s") as "s" | "m" | "h"];
  return Number(match[1]) * unit;
}
