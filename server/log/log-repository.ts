/** One entry of the transparency log: a sealed batch's root. */
export interface LogEntry {
  index: number;
  /** RFC 6962 leaf hash of the entry's data, the batch root's 32 bytes. */
  leafHash: Uint8Array;
  batchId: string;
}

/** A signed checkpoint as stored. */
export interface StoredCheckpoint {
  treeSize: number;
  root: Uint8Array;
  /** The C2SP signed note, as served. */
  note: string;
  signedAt: Date;
}

/** The append-only log over batch roots (`store.log`). */
export interface LogRepository {
  /**
   * Appends every sealed batch that is not in the log yet, in sealing order, at the next indexes,
   * in one transaction (PostgreSQL: under a lock on the log, so two instances never take the same
   * index). `leafHash` hashes a root into its entry. Resolves the log's size afterwards.
   */
  appendSealed(now: Date, leafHash: (root: Uint8Array) => Uint8Array): Promise<number>;
  /** Every entry from index `from` on, in index order. */
  entriesFrom(from: number): Promise<LogEntry[]>;
  /** Stores a checkpoint; one of the same size already stored wins (both are deterministic). */
  saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void>;
  /**
   * Puts `checkpoint` in place of the stored one of its size: the same tree signed again, with the
   * active log key, when the key that signed it was revoked.
   */
  replaceCheckpoint(checkpoint: StoredCheckpoint): Promise<void>;
  /** The checkpoint of the largest tree, if any was signed. */
  latestCheckpoint(): Promise<StoredCheckpoint | undefined>;
}
