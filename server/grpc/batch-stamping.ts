import { setImmediate as nextTurn } from "node:timers/promises";
import { ulid } from "ulid";
import { ServiceError } from "../errors.js";
import type { EventBus } from "../events/bus.js";
import type { HashStampRequest, StampService } from "../stamps/stamp-service.js";
import type { StampView } from "../stamps/stamp-view.js";

/**
 * Items stored per transaction. Small enough that a 1000-item batch lets other calls run (and
 * reports progress) ten times, large enough that the durable write is paid once per 100 stamps.
 */
const CHUNK = 100;

export interface Batch {
  id: string;
  accountId: string | null;
  /** Each item as the domain takes it, or the reason gRPC already refused it. */
  items: Array<HashStampRequest | ServiceError>;
}

export const newBatchId = (): string => `bat_${ulid()}`;

/**
 * Stamps a batch chunk by chunk, in request order, publishing `batch_progress` on the event bus
 * (the WebSocket `batch` channel) after each chunk. Refused items count as processed and do not stop
 * the batch. A started batch runs to its end even when its caller goes away or the server begins to
 * shut down: it is short (MAX_BATCH_ITEMS), and stopping halfway would leave a caller that retries
 * with half its stamps made twice.
 */
export async function stampBatch(
  stamps: StampService,
  events: EventBus,
  batch: Batch,
): Promise<Array<StampView | ServiceError>> {
  const results: Array<StampView | ServiceError> = [];
  for (let start = 0; start < batch.items.length; start += CHUNK) {
    results.push(...(await stampChunk(stamps, batch.items.slice(start, start + CHUNK))));
    publishProgress(events, batch, results.length);
    await nextTurn();
  }
  if (batch.items.length === 0) publishProgress(events, batch, 0);
  return results;
}

async function stampChunk(
  stamps: StampService,
  items: Array<HashStampRequest | ServiceError>,
): Promise<Array<StampView | ServiceError>> {
  const requests = items.filter((item): item is HashStampRequest => !(item instanceof ServiceError));
  const created = await stamps.createManyFromHash(requests);
  let next = 0;
  return items.map((item) => (item instanceof ServiceError ? item : created[next++]!));
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
