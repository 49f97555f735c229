/** A signing identity as stored: its private key only ever sealed with the at-rest key. */
export interface StoredIdentity {
  /** The first 16 hex characters of the public key. */
  id: string;
  /** `ed25519:<64 hex>`. */
  publicKey: string;
  accountId: string;
  /** PKCS#8 DER of the private key, sealed by AtRestCipher with the identity id as associated data. */
  sealedPrivateKey: Buffer;
  createdAt: Date;
}

/** Signing identities (`store.identities`). */
export interface IdentityRepository {
  /** Stores the identity; false (and nothing stored) when its id is already taken. */
  insert(identity: StoredIdentity): Promise<boolean>;
  get(id: string): Promise<StoredIdentity | undefined>;
}
