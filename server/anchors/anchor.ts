import type { AnchorType } from "../stamps/stamp-settings.js";

/** The batch an anchor attempt is about. */
export interface AnchorSubject {
  batchId: string;
  /** The batch's Merkle root: the 32 bytes that are anchored. */
  root: Uint8Array;
  /** The root's entry in the transparency log, or null until sequenced. */
  logIndex: number | null;
}

/** What one attempt found. `evidence` is kept for the next attempt and as the proof. */
export type AnchorOutcome =
  | { status: "confirmed"; reference: string; confirmedAt: Date; evidence?: Uint8Array }
  | { status: "pending"; retryInMs: number; evidence?: Uint8Array }
  | { status: "failed"; reason: string; evidence?: Uint8Array };

/**
 * One place a batch root is anchored. An adapter never reports an anchor it did not obtain: when it
 * cannot work on this deployment (no endpoint configured), `unavailable` says why, the worker
 * leaves its records alone (so configuring it later picks them up), and stamps read them as
 * `unavailable` with that reason (server/proofs/stamp-evidence.ts): they add nothing to the trust
 * score and keep the stamp from `anchored`.
 */
export interface AnchorAdapter {
  readonly type: AnchorType;
  /** Null when the adapter can confirm here; otherwise the reason its anchors show as `unavailable`. */
  readonly unavailable: string | null;
  /** Submits (no evidence yet) or follows up (with the evidence of the previous attempt). */
  attempt(subject: AnchorSubject, evidence: Uint8Array | null): Promise<AnchorOutcome>;
}

/** Backoff between attempts after a transient failure: 5 s doubling to one hour. */
export function anchorRetryDelay(attempts: number): number {
  return Math.min(5000 * 2 ** Math.max(0, attempts - 1), 3_600_000);
}
