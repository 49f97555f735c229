import type { Logger } from "../logger.js";
import { SerialPasses } from "../serial-passes.js";
import type { StoredCheckpoint } from "./log-repository.js";
import type { LogTiles } from "./log-tiles.js";

export interface TileMirrorLoopParts {
  /** The log's tiles and the syncs of its mirrors. */
  tiles: LogTiles;
  /** The log's latest signed checkpoint, if it has one (read from the store, never signed here). */
  latest: () => Promise<StoredCheckpoint | undefined>;
  intervalMs: number;
  logger: Logger;
}

/**
 * Follows a log that grows outside the proof pipeline with its mirrors: the stamp log, which grows
 * when a bundle is first asked for. One pass per interval (`BATCH_INTERVAL_MS`, the pace the
 * pipeline mirrors the transparency log at) brings each mirror up to the latest checkpoint, so a
 * new mirror is filled at start, a growth is copied within an interval, and a failed mirror is
 * retried on its delay (tile-mirror.ts) even while the log does not grow. As with the pipeline,
 * the timer only calls tick(); tests call it themselves.
 */
export class TileMirrorLoop {
  private readonly passes: SerialPasses;
  /** Whether the last pass could not read the checkpoint: said once, not once a pass. */
  private storeFailing = false;

  constructor(private readonly parts: TileMirrorLoopParts) {
    // A pass catches what it meets; nothing reaches onError.
    this.passes = new SerialPasses(
      () => this.pass(),
      () => {},
    );
  }

  /** One pass, after any pass already running (passes never overlap); never rejects. */
  tick(): Promise<void> {
    return this.passes.tick();
  }

  /** Starts the timer, when there is a mirror to follow. */
  start(): void {
    if (this.parts.tiles.hasMirrors) this.passes.start(this.parts.intervalMs, () => this.tick());
  }

  /** Stops the timer and waits for the pass in flight, so the store can close under it. */
  stop(): Promise<void> {
    return this.passes.stop();
  }

  private async pass(): Promise<void> {
    if (!this.parts.tiles.hasMirrors) return;
    let checkpoint: StoredCheckpoint | undefined;
    try {
      checkpoint = await this.parts.latest();
    } catch (err) {
      // The store is down: readiness and the pipeline say so; the mirrors wait for it.
      if (!this.storeFailing)
        this.parts.logger.warn({ err }, "log tiles: cannot read the checkpoint to mirror");
      this.storeFailing = true;
      return;
    }
    this.storeFailing = false;
    // Each mirror's failures are caught, logged and retried by its sync.
    if (checkpoint) await this.parts.tiles.mirrorTo(checkpoint);
  }
}
