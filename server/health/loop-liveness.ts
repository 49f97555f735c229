/** A loop is reported dead after missing this many intervals... */
const MISSED_INTERVALS = 3;
/** ...but never sooner than this: one slow pass (a large batch) is not a dead loop. */
const MIN_WINDOW_MS = 30_000;

/**
 * When a periodic job (the proof pipeline, the vault scheduler) last completed a pass, so /health
 * can tell a working loop from one that is stuck or keeps failing. Measured on the monotonic
 * process clock, not the service's clock: loops run on real timers, and tests that move a
 * ManualClock by days must not make a loop look dead. A loop that runs every hour (as the tests
 * configure the pipeline) stays alive for three hours after its last pass.
 */
export class LoopLiveness {
  private lastPassMs: number;
  private readonly windowMs: number;

  constructor(
    intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.windowMs = Math.max(MISSED_INTERVALS * intervalMs, MIN_WINDOW_MS);
    // A loop is given its first window from its creation.
    this.lastPassMs = now();
  }

  /** Runs one pass; only a pass that completes counts as a sign of life. */
  async run(pass: () => Promise<void>): Promise<void> {
    await pass();
    this.lastPassMs = this.now();
  }

  alive(): boolean {
    return this.now() - this.lastPassMs <= this.windowMs;
  }
}
