import type { StampStatus } from "../stamps/stamp-repository.js";
import type { AnchorType } from "../stamps/stamp-settings.js";

/** A stamp claimed for a batch: what its leaf and its events need. */
export interface ClaimedStamp {
  id: string;
  accountId: string | null;
  /** The RFC 6962 leaf hash of the stored document (server/proofs/stamp-leaf-hash.ts). */
  leafHash: Uint8Array;
  /**
   * The stored document's canonical text at least up to the end of its `anchors` array, which
   * opens it (RFC 8785 orders members by name): the anchor types it requested, without the rest.
   */
  opening: string;
}

/** A Merkle batch, signed. */
export interface Batch {
  id: string;
  sealedAt: Date;
  treeSize: number;
  root: Uint8Array;
  /**
   * Ed25519, hex (gRPC `Proof.prime_signature`): over core/proof-batch-signature.ts's message of the
   * batch (version 2), or, for batches sealed before issue #35, over the 32 root bytes (version 1).
   */
  signature: string;
  publicKey: string;
  /** The root's entry in the transparency log; null until the log sequenced it. */
  logIndex: number | null;
}

/** One stamp's place in its batch. */
export interface LeafProof {
  stampId: string;
  leafIndex: number;
  auditPath: Uint8Array[];
}

/** What sealing produces from the claimed stamps, stored in the claim's transaction. */
export interface SealedBatch {
  batch: Batch;
  leaves: (LeafProof & { accountId: string | null })[];
  /** Every anchor type some stamp of the batch requested: one anchor record each. */
  anchors: AnchorType[];
}

/** A stamp of a batch, as anchoring sees it. */
export interface BatchMember {
  id: string;
  accountId: string | null;
  status: StampStatus;
  anchors: AnchorType[];
}

/** Batches and per-stamp proofs (`store.proofs`). */
export interface ProofRepository {
  /**
   * In one transaction: claims up to `max` stamps that are in no batch, oldest id
   * first (taken off the queue of waiting stamps, migration 0013; PostgreSQL takes them `FOR
   * UPDATE SKIP LOCKED`), hands them to `seal`, and stores the batch, the leaf proofs (each stamp's
   * membership of the batch: its row in `stamps` is not rewritten, and reads as confirmed from
   * then on) and a pending anchor record per type (due at once). `seal` is synchronous because
   * it runs inside the transaction: a crash before the commit leaves every stamp unclaimed.
   * Resolves null when no stamp was waiting.
   */
  sealBatch(max: number, seal: (claimed: ClaimedStamp[]) => SealedBatch): Promise<SealedBatch | null>;
  /** The stamp's leaf proof with its batch; undefined while the stamp is in no batch. */
  proofOf(stampId: string): Promise<(LeafProof & { batch: Batch }) | undefined>;
  getBatch(batchId: string): Promise<Batch | undefined>;
  members(batchId: string): Promise<BatchMember[]>;
  /** Moves these stamps from confirmed to anchored (others are left as they are). */
  markAnchored(stampIds: readonly string[]): Promise<void>;
}
