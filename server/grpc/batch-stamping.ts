import { ulid } from "ulid";
import { ServiceError } from "../errors.js";
import type { EventBus } from "../events/bus.js";
import type { HashStampRequest, StampService } from "../stamps/stamp-service.js";
import type { StampView } from "../stamps/stamp-view.js";

export interface Batch {
  id: string;
  accountId: string | null;
  /** Each item as the domain takes it, or the reason gRPC already refused it. */
  items: Array<HashStampRequest | ServiceError>;
}

export const newBatchId = (): string => `bat_${ulid()}`;

/**
 * Stamps a batch in request order: its valid items are signed together (one service signature over
 * their Merkle root) and stored in one transaction, then `batch_progress` goes to the event bus
 * (the WebSocket `batch` channel) once, with every item processed. Refused items count as
 * processed and do not stop the batch. One transaction rather than one per hundred items: each
 * commit is an fsync (about 2.5 ms here) during which SQLite holds the event loop, so ten of them
 * would cost a 1000-item batch more than all its other work. A started batch runs to its end even
 * when its caller goes away or the server begins to shut down: stopping halfway would leave a
 * caller that retries with half its stamps made twice.
 */
export async function stampBatch(
  stamps: StampService,
  events: EventBus,
  batch: Batch,
): Promise<Array<StampView | ServiceError>> {
  const requests = batch.items.filter((item): item is HashStampRequest => !(item instanceof ServiceError));
  const created = await stamps.createManyFromHash(requests);
  let next = 0;
  const results = batch.items.map((item) => (item instanceof ServiceError ? item : created[next++]!));
  publishProgress(events, batch, results.length);
  return results;
}

function publishProgress(events: EventBus, batch: Batch, processed: number): void {
  const total = batch.items.length;
  events.publish({
    type: "batch_progress",
    data: {
      batchId: batch.id,
      processed,
      total,
      percentage: total === 0 ? 100 : Math.round((10_000 * processed) / total) / 100,
    },
    scope: { batchId: batch.id, accountId: batch.accountId },
  });
}
