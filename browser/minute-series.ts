/** Counts per minute: `counts[i]` covers the minute starting `from` + i minutes. */
export interface MinuteSeries {
  from: string;
  counts: number[];
}

const MINUTE_MS = 60_000;

/**
 * The series with one more stamp at `at`, its window moved forward (same length, oldest minutes
 * dropped) when `at` lies past its last minute. A stamp older than the window changes nothing.
 */
export function addToSeries(series: MinuteSeries, at: Date): MinuteSeries {
  const from = Date.parse(series.from);
  const index = Math.floor((at.getTime() - from) / MINUTE_MS);
  if (index < 0) return series;
  const shift = Math.max(0, index - series.counts.length + 1);
  const counts = [
    ...series.counts.slice(shift),
    ...new Array<number>(Math.min(shift, series.counts.length)).fill(0),
  ];
  counts[index - shift] = (counts[index - shift] ?? 0) + 1;
  return { from: new Date(from + shift * MINUTE_MS).toISOString(), counts };
}
