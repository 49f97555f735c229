// Knobs every benchmark reads from the environment, so a longer (steadier) local run or a very
// short smoke run needs no code change. The defaults keep `npm run bench` (all eight) well under
// 15 minutes on a 2-core machine.

/** BENCH_SCALE multiplies every duration (3: steadier figures; 0.1: a smoke run). */
const scale = positive("BENCH_SCALE", 1);

/** `base` seconds scaled by BENCH_SCALE, whole and at least 1 (autocannon counts whole seconds). */
export function seconds(base: number): number {
  return Math.max(1, Math.round(base * scale));
}

/** Rounds per comparison: BENCH_ROUNDS when set, else `base`. */
export function rounds(base: number): number {
  return Math.max(1, Math.round(positive("BENCH_ROUNDS", base)));
}

/** A positive number from the environment, else `fallback`; anything else stops the run. */
export function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!(value > 0)) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return value;
}

/** A comma-separated list of positive integers from the environment, else `fallback`. */
export function integers(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const values = raw.split(",").map(Number);
  if (!values.every((v) => Number.isInteger(v) && v > 0)) {
    throw new Error(`${name} must be comma-separated positive integers, got "${raw}"`);
  }
  return values;
}
