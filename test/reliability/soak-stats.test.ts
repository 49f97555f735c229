import { describe, expect, it } from "vitest";
import { judgeFlatness, parseDuration, percentile, type RssSample } from "../../scripts/soak/stats.js";

const MB = 1024 * 1024;
const rule = { warmupSeconds: 60, windowSeconds: 20, maxGrowth: 0.1 };

/** One sample a second for `seconds`, RSS in MB given by `mb(t)`. */
const series = (seconds: number, mb: (t: number) => number): RssSample[] =>
  Array.from({ length: seconds + 1 }, (_, t) => ({ t, bytes: mb(t) * MB }));

describe("the soak's RSS judgement", () => {
  it.each([
    ["flat", (_t: number) => 200, true],
    ["a warm-up climb, then flat", (t: number) => (t < 60 ? 100 + 2 * t : 220), true],
    ["a sawtooth around a level (garbage collections)", (t: number) => 200 + ((t * 7) % 30), true],
    ["a steady leak of 0.5 MB/s", (t: number) => 200 + 0.5 * t, false],
    ["a step up of 15 % after warm-up", (t: number) => (t < 100 ? 200 : 230), false],
  ])("%s: flat = %s", (_name, mb, flat) => {
    expect(judgeFlatness(series(180, mb), rule, 180).pass).toBe(flat);
  });

  it("reports the growth between the medians of the two windows", () => {
    const verdict = judgeFlatness(
      series(180, (t) => (t < 120 ? 200 : 210)),
      rule,
      180,
    );
    expect(verdict).toMatchObject({ firstWindowMedian: 200 * MB, lastWindowMedian: 210 * MB });
    expect(verdict.growth).toBeCloseTo(0.05);
  });

  it("refuses to judge a run too short for both windows", () => {
    expect(() =>
      judgeFlatness(
        series(50, () => 200),
        rule,
        50,
      ),
    ).toThrow(/too few RSS samples/);
  });
});

describe("the soak's arguments and percentiles", () => {
  it.each([
    ["30m", 1800],
    ["2m", 120],
    ["90s", 90],
    ["1h", 3600],
    ["45", 45],
  ])("%s is %i seconds", (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it("rejects what is not a duration", () => {
    expect(() => parseDuration("soon")).toThrow(/not a duration/);
  });

  it("takes the nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect([50, 95, 99, 100].map((p) => percentile(values, p))).toEqual([50, 95, 99, 100]);
    expect(percentile([], 50)).toBeNaN();
  });
});
