import { ulid } from "ulid";
import { ServiceError } from "../errors.js";
import type { HashStampRequest, StampService } from "../stamps/stamp-service.js";
import type { StampView } from "../stamps/stamp-view.js";

export interface StampingBatch {
  id: string;
  accountId: string | null;
  /** Each item as the domain takes it, or the reason gRPC already refused it. */
  items: Array<HashStampRequest | ServiceError>;
}

/** `sbt_` and a ULID: the id of a BatchStamp call that did not choose one (docs/design.md, Identifiers). */
export const newStampingBatchId = (): string => `sbt_${ulid()}`;

/**
 * Stamps a batch in request order: its valid items are signed together (one service signature over
 * their Merkle root) and stored in one transaction, with `batch_progress` on the event bus (the
 * WebSocket `batch` channel) as they are processed and 100 % once they are stored (BatchProgress).
 * Refused items count as processed and do not stop the batch. One transaction rather than one per
 * hundred items: each commit is an fsync (about 2.5 ms here) during which SQLite holds the event
 * loop, so ten of them would cost a 1000-item batch more than all its other work. A started batch
 * runs to its end even when its caller goes away or the server begins to shut down: stopping
 * halfway would leave a caller that retries with half its stamps made twice.
 */
export async function stampBatch(
  stamps: StampService,
  batch: StampingBatch,
): Promise<Array<StampView | ServiceError>> {
  const progress = stamps.trackBatch(batch, batch.items.length);
  const requests = batch.items.filter((item): item is HashStampRequest => !(item instanceof ServiceError));
  progress.advance(batch.items.length - requests.length);
  const created = await stamps.createManyFromHash(requests, { progress });
  let next = 0;
  const results = batch.items.map((item) => (item instanceof ServiceError ? item : created[next++]!));
  progress.finish();
  return results;
}
