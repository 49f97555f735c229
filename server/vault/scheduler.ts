import { LoopLiveness } from "../health/loop-liveness.js";
import type { Logger } from "../logger.js";
import { SerialPasses } from "../serial-passes.js";
import type { VaultDeps } from "./deps.js";
import { burnUnretrieved, expireDue, warnDue } from "./due.js";

/**
 * Applies the vault's time-driven transitions: expiry at the deadline, the deadline warning, the
 * retention burn, and forgets stale retrieval proofs. Every step is an atomic claim in the store,
 * so several instances can run it side by side and each vault is acted on once. The timer only
 * calls tick(); tests call tick() themselves after moving a ManualClock.
 */
export class VaultScheduler {
  private readonly passes: SerialPasses;
  /** When a pass last completed (/health: "scheduler"). */
  readonly liveness: LoopLiveness;

  constructor(
    private readonly deps: VaultDeps,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {
    this.liveness = new LoopLiveness(intervalMs);
    this.passes = new SerialPasses(
      () => this.liveness.run(() => this.pass()),
      (err) => this.logger.error({ err }, "vault scheduler pass failed"),
    );
  }

  /** One full pass, after any pass already running (passes never overlap). */
  tick(): Promise<void> {
    return this.passes.tick();
  }

  start(): void {
    this.passes.start(this.intervalMs, () => this.tick());
  }

  /** Stops the timer and waits for the pass in flight, so the store can close under it. */
  stop(): Promise<void> {
    return this.passes.stop();
  }

  private async pass(): Promise<void> {
    const expired = await expireDue(this.deps);
    const warned = await warnDue(this.deps);
    const burned = await burnUnretrieved(this.deps);
    await this.deps.repo.purgeProofs(this.deps.clock.now());
    if (expired + warned + burned > 0) this.logger.info({ expired, warned, burned }, "vault scheduler pass");
  }
}
