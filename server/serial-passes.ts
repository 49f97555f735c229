/**
 * The passes of a background loop (the proof pipeline, the vault scheduler, a tile mirror loop):
 * one at a time, each after the one before; a timer that skips while a pass is still queued, so a
 * slow pass is not stacked up behind; and a stop that waits for the pass in flight, so the store
 * can close under it. The timer only calls tick(); tests call tick() themselves.
 */
export class SerialPasses {
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;

  /** `onError` hears a failed pass; the pass's own caller still gets its rejection. */
  constructor(
    private readonly pass: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** One pass, after any pass already running (passes never overlap). */
  tick(): Promise<void> {
    this.pending++;
    const pass = this.queue.then(this.pass).finally(() => this.pending--);
    this.queue = pass.catch(this.onError);
    return pass;
  }

  /** `tick` (the owner's, which ends in this one's) unless a pass is queued already. */
  tickIfIdle(tick: () => Promise<void>): void {
    if (this.pending === 0) tick().catch(() => {});
  }

  /** Calls `tick` every `intervalMs` while no pass is queued. */
  start(intervalMs: number, tick: () => Promise<void>): void {
    this.timer = setInterval(() => this.tickIfIdle(tick), intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for the pass in flight. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.queue;
  }
}
