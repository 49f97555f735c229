import { describe, expect, it } from "vitest";
import { addToSeries, type MinuteSeries } from "../../browser/minute-series.js";

const series = (counts: number[]): MinuteSeries => ({ from: "2026-01-01T00:00:00.000Z", counts });
const at = (minute: number, second = 30) => new Date(Date.UTC(2026, 0, 1, 0, minute, second));

describe("addToSeries (the dashboard chart's window)", () => {
  it("counts a stamp in its minute", () => {
    expect(addToSeries(series([0, 0, 0]), at(1))).toEqual(series([0, 1, 0]));
  });

  it("moves the window forward for a stamp past its end", () => {
    expect(addToSeries(series([1, 2, 3]), at(4))).toEqual({
      from: "2026-01-01T00:02:00.000Z",
      counts: [3, 0, 1],
    });
  });

  it("starts afresh when the stamp is past the whole window", () => {
    expect(addToSeries(series([1, 2, 3]), at(30))).toEqual({
      from: "2026-01-01T00:28:00.000Z",
      counts: [0, 0, 1],
    });
  });

  it("ignores a stamp older than the window", () => {
    const s = series([1, 2, 3]);
    expect(addToSeries(s, new Date(Date.UTC(2025, 11, 31, 23, 59)))).toBe(s);
  });
});
