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
  /** From when the key's signatures are not trusted (the suspected compromise, or now). */
  at: Date;
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
   * In one transaction: the kind's active key is retired with `not_after = retiredUntil` and
   * `next` becomes active. Returns the retired key, or undefined when the kind had none active.
   */
  rotate(next: StoredRingKey, retiredUntil: Date): Promise<StoredRingKey | undefined>;
  /** Marks a retired key revoked; false when there is no such key or it is active. */
  revoke(kind: RingKeyKind, keyId: string, revocation: Revocation): Promise<boolean>;
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
