import type { RingKeyKind } from "../../core/key-ring.js";

export type { RingKeyKind };

/** One key of the deployment's ring as the store holds it (core/key-ring.ts publishes it). */
export interface StoredRingKey {
  kind: RingKeyKind;
  keyId: string;
  /** `ed25519:<hex>` (service, log) or the PEM certificate chain (tsa: its certificate, then its CAs). */
  publicKey: string;
  /** Log keys: the checkpoint origin they sign under. */
  origin: string | null;
  /** The private key sealed with the at-rest key; null for a key whose secret the ring never held. */
  sealedPrivateKey: Buffer | null;
  notBefore: Date;
  notAfter: Date | null;
  state: "active" | "retired" | "revoked";
  revokedAt: Date | null;
  revocationReason: string | null;
}

export interface Revocation {
  reason: string;
  /** From when the key's signatures are not trusted (the suspected compromise); absent: now. */
  at?: Date;
}

/**
 * The deployment's clock, read by a change to the ring once it holds the ring's lock (on
 * PostgreSQL never earlier than the database's own clock): every signer's read of the ring that
 * did not see the change began before that time (server/keys/key-ring.ts, `vouches`).
 */
export type RingClock = () => Date;

/** What a revocation changed, all in one transaction. */
export interface Revoked {
  /** Every role the key's material held, now revoked (a service and a log key sharing one key). */
  revoked: StoredRingKey[];
  /** The fresh keys that took over the roles it held active. */
  activated: StoredRingKey[];
  /** When the change was made (the ring clock's time under the lock). */
  at: Date;
}

/** A key as a signer checks it before answering what it signed (`KeyRingRepository.signingStates`). */
export type SigningState = Pick<
  StoredRingKey,
  "kind" | "keyId" | "publicKey" | "notBefore" | "notAfter" | "state" | "revokedAt"
>;

export interface SigningStates {
  /** The service and log keys as the read found them. */
  keys: SigningState[];
  /**
   * The database's time when the read began (PostgreSQL); absent where the store and the signers
   * share the host's clock (SQLite), whose own reading before the read serves.
   */
  startedAt?: Date;
}

/** The key ring and the at-rest key's check value, one implementation per store engine. */
export interface KeyRingRepository {
  /** Every key, oldest first. */
  list(): Promise<StoredRingKey[]>;
  /**
   * Adds `key` unless its kind already has an active key or the key is there (two instances
   * registering at once: one wins); whether it was added.
   */
  register(key: StoredRingKey): Promise<boolean>;
  /**
   * In one transaction holding the ring's lock: the kind's active key is retired with `not_after`
   * `overlapMs` after now and `next` becomes active from now (`now` read under the lock). Returns
   * the new key and the retired one as stored.
   */
  rotate(
    next: StoredRingKey,
    change: { now: RingClock; overlapMs: number },
  ): Promise<{ active: StoredRingKey; retired?: StoredRingKey }>;
  /**
   * In one transaction holding the ring's lock: every role of the key material of the `kind` key
   * `keyId` is revoked (from `revocation.at`, default now); a role it holds active is first
   * retired with `not_after` now and its key in `replacements` made active from now. Undefined
   * when there is no such key; throws when an active role has no replacement (the ring changed
   * since the caller read it).
   */
  revoke(
    kind: RingKeyKind,
    keyId: string,
    revocation: Revocation,
    change: { now: RingClock; replacements: Partial<Record<RingKeyKind, StoredRingKey>> },
  ): Promise<Revoked | undefined>;
  /**
   * The service and log keys' states, read without waiting for any write but a ring change
   * (which holds the ring's lock): what a signer checks, after storing what it signed.
   */
  signingStates(): Promise<SigningStates>;
  /**
   * Stores the sealed private key of a key the ring holds without one (a TSA certificate
   * registered before the ring kept TSA keys); false when there is no such key or it has one.
   */
  sealPrivateKey(kind: RingKeyKind, keyId: string, sealed: Buffer): Promise<boolean>;
  /** The stored check value named `name`, if any. */
  check(name: string): Promise<Buffer | undefined>;
  /** Stores a check value unless one is there (the first instance's wins). */
  saveCheck(name: string, value: Buffer): Promise<void>;
}
