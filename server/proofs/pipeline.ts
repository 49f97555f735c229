import type { AnchorWorker } from "../anchors/anchor-worker.js";
import type { EventBus } from "../events/bus.js";
import { LoopLiveness } from "../health/loop-liveness.js";
import type { TransparencyLog } from "../log/transparency-log.js";
import type { Logger } from "../logger.js";
import { SerialPasses } from "../serial-passes.js";
import type { Batcher } from "./batcher.js";

export interface PipelineParts {
  batcher: Batcher;
  log: TransparencyLog;
  anchors: AnchorWorker;
  events: EventBus;
  logger: Logger;
  intervalMs: number;
  /** A pass starts early once this many stamps were created since the last (`BATCH_MAX`). */
  maxStamps: number;
}

/**
 * The proof pipeline, one pass per `BATCH_INTERVAL_MS` (or sooner when `BATCH_MAX` stamps wait):
 * seal the waiting stamps into batches, append the roots to the log and sign a checkpoint, then
 * work on due anchors. Every step claims its work in the store, so instances can run it side by
 * side. As with the vault scheduler, the timer only calls tick(); tests call tick() themselves.
 */
export class ProofPipeline {
  private readonly passes: SerialPasses;
  private created = 0;
  private unsubscribe: (() => void) | undefined;
  /** When a pass last completed (/health: "batcher"). */
  readonly liveness: LoopLiveness;

  constructor(private readonly parts: PipelineParts) {
    this.liveness = new LoopLiveness(parts.intervalMs);
    this.passes = new SerialPasses(
      () => {
        // The stamps counted towards the next pass are those created since this one began.
        this.created = 0;
        return this.liveness.run(() => this.pass());
      },
      (err) => this.parts.logger.error({ err }, "proof pipeline pass failed"),
    );
  }

  /** One full pass, after any pass already running (passes never overlap). */
  tick(): Promise<void> {
    return this.passes.tick();
  }

  start(): void {
    this.passes.start(this.parts.intervalMs, () => this.tick());
    this.unsubscribe = this.parts.events.subscribe((event) => {
      if (event.type === "stamp_created" && ++this.created >= this.parts.maxStamps)
        this.passes.tickIfIdle(() => this.tick());
    });
  }

  /** Stops the timer and waits for the pass in flight, so the store can close under it. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    await this.passes.stop();
  }

  private async pass(): Promise<void> {
    const sealed = await this.parts.batcher.sealPending();
    await this.parts.log.sequence();
    const anchored = await this.parts.anchors.run();
    if (sealed.length + anchored > 0) {
      const stamps = sealed.reduce((n, b) => n + b.batch.treeSize, 0);
      this.parts.logger.debug(
        { batches: sealed.length, stamps, anchorAttempts: anchored },
        "proof pipeline pass",
      );
    }
  }
}
