import type { Clock } from "../clock.js";
import type { EventBus } from "../events/bus.js";
import type { Logger } from "../logger.js";
import type { ProofRepository } from "../proofs/proof-repository.js";
import type { AnchorType } from "../stamps/stamp-settings.js";
import { type AnchorAdapter, type AnchorOutcome, anchorRetryDelay } from "./anchor.js";
import type { AnchorRecord, AnchorRepository } from "./anchor-repository.js";

export interface AnchorWorkerDeps {
  anchors: AnchorRepository;
  proofs: ProofRepository;
  adapters: readonly AnchorAdapter[];
  clock: Clock;
  events: EventBus;
  logger: Logger;
}

// A claimed record is left alone this long by other workers; an attempt takes far less.
const LEASE_MS = 5 * 60_000;
const CLAIM_LIMIT = 100;

/**
 * Works on due anchor records: submits batch roots, follows pending anchors up, and when an anchor
 * confirms tells every stamp of the batch that asked for it (`stamp_anchored`) and moves the
 * stamps whose anchors are all in to `anchored`.
 */
export class AnchorWorker {
  constructor(private readonly deps: AnchorWorkerDeps) {}

  /** One pass over the records due now; resolves how many were attempted. */
  async run(): Promise<number> {
    const { anchors, adapters, clock } = this.deps;
    const types = adapters.filter((a) => a.unavailable === null).map((a) => a.type);
    const due = await anchors.claimDue(types, clock.now(), LEASE_MS, CLAIM_LIMIT);
    await Promise.all(due.map((record) => this.attempt(record)));
    return due.length;
  }

  private async attempt(record: AnchorRecord): Promise<void> {
    const batch = await this.deps.proofs.getBatch(record.batchId);
    const adapter = this.deps.adapters.find((a) => a.type === record.type);
    if (!batch || !adapter) return;
    const outcome = await adapter
      .attempt({ batchId: batch.id, root: batch.root, logIndex: batch.logIndex }, record.evidence)
      .catch((err: unknown): AnchorOutcome => {
        // Network trouble, a TSA answering 503: try again later, never fail the anchor for it.
        this.deps.logger.warn({ err, batchId: batch.id, anchor: record.type }, "anchor attempt failed");
        return { status: "pending", retryInMs: anchorRetryDelay(record.attempts + 1) };
      });
    const next = this.apply(record, outcome);
    const nextAttempt = new Date(
      this.deps.clock.now().getTime() + (outcome.status === "pending" ? outcome.retryInMs : 0),
    );
    await this.deps.anchors.save(next, nextAttempt);
    if (next.status !== "pending") await this.settle(next);
  }

  private apply(record: AnchorRecord, outcome: AnchorOutcome): AnchorRecord {
    const next = { ...record, attempts: record.attempts + 1, evidence: outcome.evidence ?? record.evidence };
    if (outcome.status === "confirmed") {
      return { ...next, status: "confirmed", reference: outcome.reference, confirmedAt: outcome.confirmedAt };
    }
    if (outcome.status === "failed") return { ...next, status: "failed", reason: outcome.reason };
    return next;
  }

  /** After an anchor of a batch confirmed or failed: events, then the stamps' status. */
  private async settle(record: AnchorRecord): Promise<void> {
    const { proofs, anchors, events } = this.deps;
    const members = await proofs.members(record.batchId);
    const records = await anchors.forBatch(record.batchId);
    if (record.status === "confirmed") {
      for (const stamp of members.filter((m) => m.anchors.includes(record.type))) {
        events.publish({
          type: "stamp_anchored",
          data: {
            stampId: stamp.id,
            chain: record.type,
            txHash: record.reference!,
            timestamp: record.confirmedAt!.toISOString(),
          },
          scope: { accountId: stamp.accountId, stampId: stamp.id },
        });
      }
    }
    const anchored = members.filter((m) => m.status === "confirmed" && isAnchored(m.anchors, records));
    await proofs.markAnchored(anchored.map((m) => m.id));
  }
}

/**
 * Whether a confirmed stamp is anchored: it requested anchors and every one of them has confirmed.
 * One that failed, or that this deployment cannot provide, keeps the stamp `confirmed`, as does
 * requesting none (anchored by nothing is not anchored). The stored status follows the rule the
 * views apply on every read (`stampStatus` in core/trust.ts).
 */
function isAnchored(requested: readonly AnchorType[], records: readonly AnchorRecord[]): boolean {
  const confirmed = (type: AnchorType) => records.some((r) => r.type === type && r.status === "confirmed");
  return requested.length > 0 && requested.every(confirmed);
}
