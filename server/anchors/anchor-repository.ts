import type { AnchorType } from "../stamps/stamp-settings.js";

/** The state of one anchor of one batch. */
export interface AnchorRecord {
  batchId: string;
  type: AnchorType;
  status: "pending" | "confirmed" | "failed";
  reference: string | null;
  confirmedAt: Date | null;
  reason: string | null;
  evidence: Uint8Array | null;
  attempts: number;
}

/** Anchor records (`store.anchors`); created pending by `ProofRepository.sealBatch`. */
export interface AnchorRepository {
  /**
   * Claims up to `limit` pending records of these types that are due at `now`, by moving their
   * next attempt to `now + leaseMs` in the same statement (PostgreSQL: `FOR UPDATE SKIP LOCKED`),
   * so two workers never work on one record at once.
   */
  claimDue(types: readonly AnchorType[], now: Date, leaseMs: number, limit: number): Promise<AnchorRecord[]>;
  /** Stores the outcome of an attempt; `nextAttemptAt` matters only while pending. */
  save(record: AnchorRecord, nextAttemptAt: Date): Promise<void>;
  forBatch(batchId: string): Promise<AnchorRecord[]>;
  /** Pending records by anchor type, for metrics (an indexed count: only pending rows are read). */
  pendingByType(): Promise<Partial<Record<AnchorType, number>>>;
}
