import { decodeTime } from "ulid";
import type { AnchorRepository } from "../anchors/anchor-repository.js";
import type { ProofRepository, SealedBatch } from "../proofs/proof-repository.js";
import { type Metrics, secondsSince } from "./metrics.js";
import { wrapMethods } from "./wrap-methods.js";

/**
 * The proof repository as the batcher uses it, recording each sealed batch: how long sealing took
 * and how long each of its stamps waited for it (a stamp id's ULID time is its creation time).
 */
export function observeSealing(proofs: ProofRepository, metrics: Metrics): ProofRepository {
  return wrapMethods(proofs, (name, call) => {
    if (name !== ("sealBatch" satisfies keyof ProofRepository)) return undefined;
    return async (...args) => {
      const start = performance.now();
      const sealed: SealedBatch | null = await call(...args);
      if (sealed) recordBatch(metrics, sealed, secondsSince(start));
      return sealed;
    };
  });
}

function recordBatch(metrics: Metrics, { batch, leaves }: SealedBatch, seconds: number): void {
  metrics.batchesSealed.inc();
  metrics.batchSealDuration.observe(seconds);
  const sealedMs = batch.sealedAt.getTime();
  for (const leaf of leaves) {
    metrics.batchWait.observe(Math.max(0, sealedMs - decodeTime(leaf.stampId.slice("stp_".length))) / 1000);
  }
}

/** The anchor repository as the anchor worker uses it, counting the anchors it confirms or fails. */
export function observeAnchorOutcomes(anchors: AnchorRepository, metrics: Metrics): AnchorRepository {
  return wrapMethods(anchors, (name, call) => {
    if (name !== ("save" satisfies keyof AnchorRepository)) return undefined;
    return async (...args: Parameters<AnchorRepository["save"]>) => {
      await call(...args);
      const [{ type, status }] = args;
      if (status !== "pending") metrics.anchorsSettled.inc({ type, outcome: status });
    };
  });
}
