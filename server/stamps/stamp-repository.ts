import type { ContentHash } from "../../core/content-hash.js";
import type { StampDocument, StampStatus } from "../../core/types.js";

// Defined once, in core/; the stamps domain's users find them here too.
export type { StampDocument, StampStatus };

/** A stamp as stored. Only hashes and the signed document are kept, never document content. */
export interface StoredStamp {
  id: string;
  /** The account of the key that created it; null for an anonymous stamp. */
  accountId: string | null;
  /** The identity that signed it, or null. */
  identityId: string | null;
  status: StampStatus;
  /** The signed stamp document exactly as issued (it never changes). */
  document: StampDocument;
  /**
   * The document's RFC 8785 text when the issuer has it at hand (stored as is, not canonicalized
   * again), or its text as read from the store (the same text unless the row was changed since).
   */
  json?: string;
  /** The full fingerprint document when one was generated, for the shadow endpoint. */
  fingerprint: unknown | null;
  /**
   * An upload's SHA-256 (lowercase hex), computed in the read that computed its document hash, so
   * its Sigstore bundle can carry SHA2_256 and a SHA-256 search finds it. Not signed in `document`.
   * Null for a stamp of a hash and for uploads stored before migration 0016.
   */
  contentSha256: string | null;
}

/** A stamp found by its document hash: what a search lists of it. */
export interface HashMatch {
  id: string;
  /** RFC 3339, UTC, milliseconds (the stamp document's `created_at`). */
  createdAt: string;
}

/** One page of a search by document hash. */
export interface HashPage {
  limit: number;
  /** List the stamps after this id in the search's order (newest first); absent: from the newest. */
  after?: string;
}

/** Stamps (`store.stamps`). */
export interface StampRepository {
  /**
   * Stores a new stamp durably before resolving (the caller answers the client after). Concurrent
   * inserts share one transaction (server/store/group-commit.ts).
   */
  insert(stamp: StoredStamp): Promise<void>;
  /** Stores new stamps all or none (batch stamping), durably before resolving; grouped like insert. */
  insertMany(stamps: StoredStamp[]): Promise<void>;
  get(id: string): Promise<StoredStamp | undefined>;
  /**
   * The stamps of one algorithm and digest, newest first (descending id: ids are ULIDs, so that is
   * descending creation time), at most `page.limit`; for a SHA-256, also the uploads whose
   * `contentSha256` it is. Served by the indexes of migrations 0010 and 0016.
   */
  findByHash(hash: ContentHash, page: HashPage): Promise<HashMatch[]>;
  /** Number of stamps signed by an identity. */
  countByIdentity(identityId: string): Promise<number>;
  /**
   * Number of stamps stored, ever: a counter the schema keeps in the transaction of each insert
   * (migration 0009), so reading it costs the same at any size.
   */
  count(): Promise<number>;
}
