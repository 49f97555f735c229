import type { components } from "../../gen/openapi/types.js";
import type { VaultState } from "./state.js";

/** The owner's JSON key-value pairs, bounded by limits.ts (spec: VaultMetadata). */
export type VaultMetadata = components["schemas"]["VaultMetadata"];

export type BurnReason = "owner_request" | "retention_expired";

/** A vault as the store holds it, without its encrypted key (only `retrieve` ever reads that). */
export interface VaultRecord {
  id: string;
  accountId: string;
  state: VaultState;
  /** `ed25519:<hex>`, or null for an owner-bound vault (only its account may retrieve). */
  recipientPublicKey: string | null;
  /** Seconds a heartbeat extends the deadline by (a group's interval replaces it). */
  heartbeatDeadline: number;
  allowManualRelease: boolean;
  contentUris: string[];
  metadata: VaultMetadata;
  createdAt: Date;
  deadline: Date;
  lastHeartbeat: Date | null;
  heartbeatCount: number;
  groupId: string | null;
  /** The interval of the vault's group (read from the group), or null. */
  groupInterval: number | null;
  /** When the owner released it, or its deadline once it expired. */
  releasedAt: Date | null;
  releaseReason: string | null;
  retrievedAt: Date | null;
  burnedAt: Date | null;
  burnReason: BurnReason | null;
  /** The owner's text when burning; null for a retention burn. */
  burnNote: string | null;
  /** Grows with every change; writes are conditional on it (optimistic concurrency). */
  version: number;
}

/** Columns an operation may change. `eraseKey` deletes the encrypted key for good. */
export type VaultPatch = Partial<
  Pick<
    VaultRecord,
    | "state"
    | "deadline"
    | "lastHeartbeat"
    | "heartbeatCount"
    | "contentUris"
    | "releasedAt"
    | "releaseReason"
    | "retrievedAt"
    | "burnedAt"
    | "burnReason"
    | "burnNote"
  >
> & { eraseKey?: true };

/** A change to one vault, applied only if the vault is still at `version`. */
export interface VaultChange {
  id: string;
  version: number;
  set: VaultPatch;
}

/** A consumed fee receipt; its id is unique, which is what makes a receipt single-use. */
export interface FeePayment {
  /** `<issuer key>/<receipt id>`: ids are the issuer's own, kept apart per issuer. */
  receiptId: string;
  /**
   * The receipt's id alone, as receipts used before ids were kept per issuer were recorded: a
   * receipt recorded so is used, so it is not spent a second time under its new key.
   */
  legacyReceiptId?: string;
  /** Decimal text, as the receipt states it. */
  amount: string;
  currency: string;
  recipient: string;
  usedAt: Date;
  /** What it paid for, for audit: e.g. `heartbeat vlt_…`. */
  usedFor: string;
}

export interface HeartbeatGroupRecord {
  id: string;
  accountId: string;
  name: string;
  interval: number;
  createdAt: Date;
  vaultIds: string[];
}

/** A consumed proof_of_identity; `digest` identifies what was proven (proof.ts), accepted once. */
export interface UsedProof {
  digest: string;
  /** After this the proof is stale anyway, so the record may be purged. */
  expiresAt: Date;
}

/**
 * `applied`: everything was written. `stale`: a vault changed since it was read (nothing was
 * written; read again and retry). `receipt_used` / `proof_used`: that id was consumed before.
 */
export type WriteOutcome = "applied" | "stale" | "receipt_used";

export type RetrieveOutcome =
  | { outcome: "applied"; encryptedKey: string }
  | { outcome: "stale" }
  | { outcome: "proof_used" };

export interface VaultPage {
  items: VaultRecord[];
  total: number;
}

export interface VaultStats {
  active: number;
  total: number;
  heartbeats: number;
  /** Manual releases and expiries, including vaults burned since. */
  releases: number;
  burns: number;
  /** Sum of consumed receipt amounts in `currency`, exact decimal text. */
  feesCollected: string;
}

/**
 * A claim moves every due vault (up to `limit`, optionally only `ids`) out of `from` in one
 * atomic statement and returns exactly the vaults this call moved, so two instances never act on
 * the same vault twice. PostgreSQL implements it as UPDATE … WHERE id IN (SELECT … FOR UPDATE
 * SKIP LOCKED LIMIT n) RETURNING; SQLite as one UPDATE … RETURNING (a single writer).
 */
export interface ClaimRequest {
  from: VaultState[];
  to: VaultState;
  now: Date;
  limit: number;
  ids?: string[];
}

/** Vaults (`store.vaults`): records, groups, consumed receipts and proofs, scheduler claims. */
export interface VaultRepository {
  /** Stores a new vault with its key and, in the same transaction, the creation fee's receipt. */
  insert(vault: VaultRecord, encryptedKey: string, payment?: FeePayment): Promise<"applied" | "receipt_used">;
  find(id: string): Promise<VaultRecord | undefined>;
  /** All or nothing: every change (each conditional on its version) plus the receipt, in one transaction. */
  update(changes: VaultChange[], payment?: FeePayment): Promise<WriteOutcome>;
  /** Records the proof as used, applies `change` (sets retrievedAt) and reads the key, atomically. */
  retrieve(change: VaultChange, proof: UsedProof): Promise<RetrieveOutcome>;
  /** Creates the group and sets every member's group, each conditional on its version. */
  insertGroup(
    group: HeartbeatGroupRecord,
    members: { id: string; version: number }[],
  ): Promise<"applied" | "stale">;
  /** Newest first (created_at, then id). Without accountId: every account's vaults. */
  list(filter: { accountId?: string; state?: VaultState; limit: number; offset: number }): Promise<VaultPage>;
  stats(currency: string): Promise<VaultStats>;
  /** Vaults by state (states without vaults are absent), for metrics. */
  countByState(): Promise<Partial<Record<VaultState, number>>>;
  /** Active → expired for deadlines at or before `now`; releasedAt becomes the deadline. */
  claimExpired(claim: ClaimRequest): Promise<VaultRecord[]>;
  /** Released/expired → burned, key erased, when not retrieved and released at or before `releasedBefore`. */
  claimRetentionBurns(claim: ClaimRequest & { releasedBefore: Date }): Promise<VaultRecord[]>;
  /**
   * Marks active vaults whose deadline is in (now, warnUntil] and not yet warned for that deadline
   * as warned, returning them: one warning per deadline, whichever instance claims it.
   */
  claimWarnings(claim: { now: Date; warnUntil: Date; limit: number }): Promise<VaultRecord[]>;
  /** Forgets used proofs that are stale anyway. */
  purgeProofs(now: Date): Promise<void>;
}
