import { generateKeyPairSync, type KeyObject } from "node:crypto";
import type { components } from "../../gen/openapi/types.js";
import { missingApiKey } from "../auth/auth-errors.js";
import type { Clock } from "../clock.js";
import { notFound, ServiceError } from "../errors.js";
import type { AtRestCipher } from "../keys/at-rest-cipher.js";
import { ed25519Signer, formatPublicKey, privateKeyFromPkcs8, type Signer } from "../keys/ed25519.js";
import type { StampRepository } from "../stamps/stamp-repository.js";
import type { IdentityRepository, StoredIdentity } from "./identity-repository.js";

export type IdentityResponse = components["schemas"]["IdentityResponse"];
export type IdentityInfo = components["schemas"]["IdentityInfo"];

/** Generates an Ed25519 key pair; injected so tests can force an id collision. */
export type KeyPairGenerator = () => { publicKey: KeyObject; privateKey: KeyObject };

// Two public keys share a 64-bit prefix about once in 2^32 identities; eight tries is plenty.
const MAX_ATTEMPTS = 8;

/**
 * Ed25519 signing identities held for the account that created them. The private key is sealed
 * with the at-rest key before it reaches the store and is never returned.
 */
export class IdentityService {
  constructor(
    private readonly identities: IdentityRepository,
    private readonly stamps: Pick<StampRepository, "countByIdentity">,
    private readonly atRest: AtRestCipher,
    private readonly clock: Clock,
    private readonly generate: KeyPairGenerator = () => generateKeyPairSync("ed25519"),
  ) {}

  /**
   * A new identity of `accountId`. Its id is the public key's first 16 hex characters, so a key
   * whose prefix is taken is discarded and another generated: ids stay unique.
   */
  async create(accountId: string): Promise<IdentityResponse> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { publicKey, privateKey } = this.generate();
      const key = formatPublicKey(publicKey);
      const id = identityIdOf(key);
      const der = privateKey.export({ format: "der", type: "pkcs8" });
      const identity: StoredIdentity = {
        id,
        publicKey: key,
        accountId,
        sealedPrivateKey: this.atRest.seal(der, id),
        createdAt: this.clock.now(),
      };
      if (await this.identities.insert(identity)) return response(identity);
    }
    throw new ServiceError("internal", "could not find a free identity id");
  }

  /** Public information about an identity; 404 `identity_not_found`. */
  async info(id: string): Promise<IdentityInfo> {
    const identity = await this.find(id);
    return { ...response(identity), stamp_count: await this.stamps.countByIdentity(id) };
  }

  /**
   * The signer of an identity, for the account that owns it: no account 401, unknown identity
   * 404, another account's identity 403 (docs/design.md).
   */
  async signerFor(id: string, accountId: string | null): Promise<Signer> {
    if (accountId === null) throw missingApiKey();
    const identity = await this.find(id);
    if (identity.accountId !== accountId) {
      throw new ServiceError(
        "permission_denied",
        `identity ${id} belongs to another account`,
        "identity_not_owned",
      );
    }
    return ed25519Signer(privateKeyFromPkcs8(this.atRest.open(identity.sealedPrivateKey, id)));
  }

  private async find(id: string): Promise<StoredIdentity> {
    const identity = await this.identities.get(id);
    if (!identity) throw notFound(`identity ${id} not found`, "identity_not_found");
    return identity;
  }
}

/** The identity id is the first 16 hex characters of the public key (docs/design.md, Identifiers). */
export const identityIdOf = (publicKey: string): string =>
  publicKey.slice("ed25519:".length, "ed25519:".length + 16);

const response = (identity: StoredIdentity): IdentityResponse => ({
  identity_id: identity.id,
  public_key: identity.publicKey,
  created_at: identity.createdAt.toISOString(),
});
