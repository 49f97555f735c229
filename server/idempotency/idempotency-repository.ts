/** The response a retry replays: status, the headers worth replaying, and the body bytes. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** Which request a record belongs to: the client, its Idempotency-Key and the operation. */
export interface IdempotencyId {
  scope: string;
  key: string;
  operation: string;
}

export interface IdempotencyRecord extends IdempotencyId {
  /** SHA-256 of what the request asked for; a retry must match it. */
  fingerprint: string;
  /** Null while the first request is still running. */
  response: StoredResponse | null;
  /** Until when the first request holds the key; after that a retry may take over. */
  lockedUntil: Date;
  expiresAt: Date;
}

export type ReserveOutcome = { reserved: true } | { reserved: false; existing: IdempotencyRecord };

/** Idempotency-Key records (`store.idempotency`). */
export interface IdempotencyRepository {
  /**
   * Inserts `record` unless a live record (expiresAt after `now`) has the same id, which it returns
   * instead; an expired one is replaced. Atomic, so two concurrent first requests cannot both win.
   */
  reserve(record: IdempotencyRecord, now: Date): Promise<ReserveOutcome>;
  /** Moves the lock of a still-running record, only if it still holds `previous` (a takeover). */
  relock(id: IdempotencyId, previous: Date, lockedUntil: Date): Promise<boolean>;
  complete(id: IdempotencyId, response: StoredResponse): Promise<void>;
  /** Forgets a running record so a retry runs again (the first attempt failed without an answer worth keeping). */
  release(id: IdempotencyId): Promise<void>;
  /** Deletes up to `limit` expired records; returns how many. */
  purgeExpired(now: Date, limit: number): Promise<number>;
}
