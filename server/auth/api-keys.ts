import { randomBytes, timingSafeEqual } from "node:crypto";
import { LRUCache } from "lru-cache";
import { ulid } from "ulid";
import type { Clock } from "../clock.js";
import { notFound } from "../errors.js";
import { invalidApiKey } from "./auth-errors.js";
import type { ApiKeyInfo, AuthRepository, RevokeOutcome, StoredApiKey } from "./auth-repository.js";
import { generateKey, hashKey, type KeyEnvironment, parseKey } from "./key-format.js";
import type { KeyTier } from "./principal.js";

export interface CreateKeyOptions {
  tier: KeyTier;
  /** An existing account to add the key to; without it a new account is created. */
  accountId?: string;
  name?: string;
  environment?: KeyEnvironment;
}

export interface IssuedKey extends ApiKeyInfo {
  /** The key itself: shown once, never stored. */
  key: string;
  keyId: string;
}

// Compared against when no active row exists, so a miss costs what a mismatch costs.
const decoyHash = randomBytes(32);

/**
 * Issues, lists, revokes and verifies API keys. Verification runs on every request, so active keys
 * found in the store are cached for `cacheMs` (0 disables the cache). A revocation through this
 * instance takes effect at once; one made elsewhere (the CLI, another server) within `cacheMs`.
 */
export class ApiKeys {
  private readonly cache?: LRUCache<string, StoredApiKey>;

  constructor(
    private readonly repo: AuthRepository,
    private readonly clock: Clock,
    cacheMs = 0,
  ) {
    if (cacheMs > 0) {
      this.cache = new LRUCache({
        max: 10_000,
        ttl: cacheMs,
        // Time from the injected clock, unrounded, so tests can move it.
        ttlResolution: 0,
        perf: { now: () => clock.now().getTime() },
      });
    }
  }

  async create(opts: CreateKeyOptions): Promise<IssuedKey> {
    const newAccount = opts.accountId === undefined;
    if (!newAccount && !(await this.repo.accountExists(opts.accountId!))) {
      throw notFound(`unknown account ${opts.accountId}`);
    }
    const { key, keyId, environment } = generateKey(opts.environment ?? "live");
    const stored: StoredApiKey = {
      id: keyId,
      accountId: opts.accountId ?? `acc_${ulid(this.clock.now().getTime())}`,
      tier: opts.tier,
      environment,
      name: opts.name ?? null,
      createdAt: this.clock.now(),
      revokedAt: null,
      secretHash: hashKey(key),
    };
    await this.repo.insertKey(stored, newAccount);
    const { secretHash: _, ...info } = stored;
    return { ...info, key, keyId };
  }

  list(): Promise<ApiKeyInfo[]> {
    return this.repo.listKeys();
  }

  /** Revokes a key by id; revoking twice is not an error. */
  async revoke(keyId: string): Promise<Exclude<RevokeOutcome, "not_found">> {
    const outcome = await this.repo.revokeKey(keyId, this.clock.now());
    this.cache?.delete(keyId);
    if (outcome === "not_found") throw notFound(`unknown key ${keyId}`);
    return outcome;
  }

  /** The active key matching `presented`; throws `invalid_api_key` for anything else. */
  async verify(presented: string): Promise<StoredApiKey> {
    const parsed = parseKey(presented);
    if (!parsed) throw invalidApiKey();
    const row = await this.findActive(parsed.keyId);
    const matches = timingSafeEqual(hashKey(presented), row?.secretHash ?? decoyHash);
    if (!row || !matches) throw invalidApiKey();
    return row;
  }

  private async findActive(keyId: string): Promise<StoredApiKey | undefined> {
    const cached = this.cache?.get(keyId);
    if (cached) return cached;
    const row = await this.repo.findKey(keyId);
    if (!row || row.revokedAt) return undefined;
    this.cache?.set(keyId, row);
    return row;
  }
}
