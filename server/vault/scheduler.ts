import { LoopLiveness } from "../health/loop-liveness.js";
import type { Logger } from "../logger.js";
import type { VaultDeps } from "./deps.js";
import { burnUnretrieved, expireDue, warnDue } from "./due.js";

/**
 * Applies the vault's time-driven transitions: expiry at the deadline, the deadline warning, the
 * retention burn, and forgets stale retrieval proofs. Every step is an atomic claim in the store,
 * so several instances can run it side by side and each vault is acted on once. The timer only
 * calls tick(); tests call tick() themselves after moving a ManualClock.
 */
export class VaultScheduler {
  private timer: NodeJS.Timeout | undefined;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  /** When a pass last completed (/health: "scheduler"). */
  readonly liveness: LoopLiveness;

  constructor(
    private readonly deps: VaultDeps,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {
    this.liveness = new LoopLiveness(intervalMs);
  }

  /** One full pass, after any pass already running (passes never overlap). */
  tick(): Promise<void> {
    this.pending++;
    const pass = this.queue.then(() => this.liveness.run(() => this.pass())).finally(() => this.pending--);
    this.queue = pass.catch((err) => this.logger.error({ err }, "vault scheduler pass failed"));
    return pass;
  }

  start(): void {
    // A slow pass is not stacked up behind: the timer skips while one is still queued.
    this.timer = setInterval(() => {
      if (this.pending === 0) this.tick().catch(() => {});
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for the pass in flight, so the store can close under it. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.queue;
  }

  private async pass(): Promise<void> {
    const expired = await expireDue(this.deps);
    const warned = await warnDue(this.deps);
    const burned = await burnUnretrieved(this.deps);
    await this.deps.repo.purgeProofs(this.deps.clock.now());
    if (expired + warned + burned > 0) this.logger.info({ expired, warned, burned }, "vault scheduler pass");
  }
}
