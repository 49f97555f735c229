import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import { failedAuthCharge } from "../ratelimit/failed-auth.js";
import type { RateLimiter } from "../ratelimit/limiter.js";
import type { Store } from "../store/store.js";
import { ApiKeys } from "./api-keys.js";
import type { StoredApiKey } from "./auth-repository.js";
import { ClientAddresses } from "./client-address.js";
import { anonymous, type Principal, type PrincipalRequest } from "./principal.js";

/**
 * Resolves who is calling, for every transport (REST middleware, gRPC interceptor, WebSocket
 * upgrade). Precedence (specs/openapi.yaml info, Authentication): Bearer key, X-API-Key, forwarded address, peer.
 */
export class Authenticator {
  /**
   * @param onRefusedKey called with the anonymous principal of the caller's address before a
   *   refused key is reported; it may throw instead (the rate limiter's 429 for key guessers).
   */
  constructor(
    readonly keys: ApiKeys,
    private readonly addresses: ClientAddresses,
    private readonly onRefusedKey?: (client: Principal) => Promise<void>,
  ) {}

  /**
   * The caller's principal. A presented key must be valid: a malformed, unknown or revoked one
   * throws `invalid_api_key` rather than falling back to anonymous (docs/design.md).
   */
  async resolvePrincipal(req: PrincipalRequest): Promise<Principal> {
    const presented = presentedKey(req);
    if (presented === undefined) return this.addressPrincipal(req);
    let key: StoredApiKey;
    try {
      key = await this.keys.verify(presented);
    } catch (err) {
      await this.onRefusedKey?.(this.addressPrincipal(req));
      throw err;
    }
    return { accountId: key.accountId, keyId: key.id, tier: key.tier, clientKey: `key:${key.id}` };
  }

  /** The anonymous principal of the caller's address, whatever key it presents: what a refused key is charged to. */
  addressPrincipal(req: PrincipalRequest): Principal {
    return anonymous(this.addresses.clientKey(req));
  }
}

/** The authenticator of a service; with a rate limiter, refused keys are charged to their address. */
export function createAuthenticator(
  config: Config,
  store: Store,
  clock: Clock,
  limiter?: RateLimiter,
): Authenticator {
  return new Authenticator(
    new ApiKeys(store.auth, clock, config.AUTH_CACHE_MS),
    new ClientAddresses(config.TRUSTED_PROXIES, config.IPV6_PREFIX_LENGTH),
    limiter && failedAuthCharge(limiter),
  );
}

/**
 * The key the caller presents, if any. Another Authorization scheme (Basic, say) presents no key;
 * a blank header counts as absent.
 */
function presentedKey(req: PrincipalRequest): string | undefined {
  const bearer = /^Bearer[ \t]+(.*)$/i.exec(req.authorization?.trim() ?? "");
  if (bearer) return bearer[1]!.trim();
  const apiKey = req.apiKey?.trim();
  return apiKey ? apiKey : undefined;
}
