import type { StoredCheckpoint } from "../log/log-repository.js";

/** An entry to append to the stamp log: a stamp's `hashedrekord` body (its log entry bytes). */
export interface NewStampLogEntry {
  stampId: string;
  body: Uint8Array;
  /** RFC 6962 leaf hash of `body`. */
  leafHash: Uint8Array;
}

/** A stamp's entry in the stamp log. */
export interface StampLogEntry {
  index: number;
  body: Uint8Array;
  /** The outside TSA's token over the entry's signature, once one was stored. */
  outsideTimestamp?: OutsideTimestamp;
}

/** An outside TSA's (`TSA_URL`) RFC 3161 response over a stamp log entry's signature. */
export interface OutsideTimestamp {
  /** The TimeStampResp, DER, as the TSA sent it. */
  response: Uint8Array;
  /** Its time as Sigstore clients read it (whole seconds). */
  genTime: Date;
}

/** An outside token to keep, with the chain of its signing certificate, leaf first. */
export interface NewOutsideTimestamp extends OutsideTimestamp {
  /** SHA-256 of the signing certificate (DER): one chain is kept per signing certificate. */
  signerSha256: Uint8Array;
  chainPem: string;
}

/**
 * The stamp log (`store.stampLog`, docs/sigstore.md): an append-only log whose entries are the
 * `hashedrekord` bodies of stamps, and its signed checkpoints.
 */
export interface StampLogRepository {
  /**
   * Appends, at the next indexes and in one transaction, the entries whose stamp is not in the log
   * yet (PostgreSQL: under a lock on the log, so two instances never take one index). Resolves
   * the log's size afterwards.
   */
  append(entries: readonly NewStampLogEntry[], now: Date): Promise<number>;
  /** The stamp's entry, if it was appended. */
  entryOf(stampId: string): Promise<StampLogEntry | undefined>;
  /**
   * Keeps `token` as the stamp's outside token, and its chain, unless the stamp has one already
   * (another request or instance stored it first); resolves the one kept.
   */
  saveOutsideTimestamp(stampId: string, token: NewOutsideTimestamp, now: Date): Promise<OutsideTimestamp>;
  /** Every chain (PEM, leaf first) that signed a kept outside token, oldest first. */
  outsideTsaChains(): Promise<string[]>;
  /** The leaf hashes from index `from` on, in index order. */
  leafHashesFrom(from: number): Promise<Uint8Array[]>;
  /** Stores a checkpoint; one of the same size already stored wins (both are deterministic). */
  saveCheckpoint(checkpoint: StoredCheckpoint): Promise<void>;
  /** Replaces the signature of the stored checkpoint of that size (its log key was revoked). */
  replaceCheckpoint(checkpoint: StoredCheckpoint): Promise<void>;
  /** The checkpoint of the largest tree, if any was signed. */
  latestCheckpoint(): Promise<StoredCheckpoint | undefined>;
}
