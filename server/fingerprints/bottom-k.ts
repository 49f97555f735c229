/**
 * The k smallest distinct values offered (a bottom-k sketch). Offers below the current k-th
 * smallest value are collected and compacted in batches, so after warm-up almost every offer is
 * a single comparison.
 */
export class BottomK {
  private pending: number[] = [];
  private threshold = 2 ** 32;

  constructor(private readonly k: number) {}

  offer(value: number): void {
    if (value >= this.threshold) return;
    this.pending.push(value);
    if (this.pending.length >= 4 * this.k) this.compact();
  }

  /** The kept values in increasing order. */
  values(): number[] {
    this.compact();
    return [...this.pending];
  }

  private compact(): void {
    const sorted = this.pending.sort((a, b) => a - b);
    const kept: number[] = [];
    for (const v of sorted) {
      if (kept.length === this.k) break;
      if (kept[kept.length - 1] !== v) kept.push(v);
    }
    this.pending = kept;
    if (kept.length === this.k) this.threshold = kept[this.k - 1]!;
  }
}
