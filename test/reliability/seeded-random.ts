/** A small seeded generator (mulberry32): the same seed replays the same kill moments and choices. */
export class SeededRandom {
  private state: number;

  constructor(readonly seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!;
  }
}

/** CRASH_SEED when set (to replay a failure), else a fresh one. */
export function seedFromEnv(): number {
  const given = process.env.CRASH_SEED;
  return given ? Number(given) >>> 0 : Math.floor(Math.random() * 4_294_967_296);
}
