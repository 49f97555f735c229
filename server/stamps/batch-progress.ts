import type { EventBus } from "../events/bus.js";

/** The most items between two `batch_progress` events. */
const MAX_STEP = 100;

/** Events every 10 % of the items or every 100 items, whichever is fewer (at least every item). */
export const progressStep = (total: number): number =>
  Math.max(1, Math.min(MAX_STEP, Math.floor(total / 10)));

/**
 * The `batch_progress` events of one batch (gRPC BatchStamp, or a StreamStamps call given a batch
 * id), on the WebSocket `batch` channel of its id. An event goes out at each multiple of the step
 * as items are processed (checked, and refused or signed) and a last one, processed = total (100 %),
 * once the batch's stamps are stored (`finish`); 100 % is never sent before that. `processed` only
 * grows. A batch whose storing fails sends no last event: its call fails instead.
 */
export class BatchProgress {
  private processed = 0;
  /** The `processed` of the last event sent. */
  private reported = 0;

  /**
   * @param total items of the batch; a stream's grows as its requests arrive (`grow`).
   * @param step items between two events; a stream, not knowing its total, says 100.
   */
  constructor(
    private readonly events: EventBus,
    private readonly batch: { id: string; accountId: string | null },
    private total: number,
    readonly step = progressStep(total),
  ) {}

  /** Items before the next event is due. */
  get untilNext(): number {
    return this.step - (this.processed - this.reported);
  }

  /** More items received (StreamStamps): the total grows. */
  grow(count: number): void {
    this.total += count;
  }

  /** `count` more items processed: an event for each multiple of the step reached below the total. */
  advance(count: number): void {
    this.processed += count;
    while (this.reported + this.step <= this.processed && this.reported + this.step < this.total) {
      this.publish(this.reported + this.step);
    }
  }

  /** Every item processed and the stamps stored: the last event, 100 %. */
  finish(): void {
    this.processed = this.total;
    this.publish(this.total);
  }

  private publish(processed: number): void {
    this.reported = processed;
    const { id, accountId } = this.batch;
    const total = this.total;
    this.events.publish({
      type: "batch_progress",
      data: {
        batchId: id,
        processed,
        total,
        percentage: total === 0 ? 100 : Math.round((10_000 * processed) / total) / 100,
      },
      scope: { batchId: id, accountId },
    });
  }
}
