import type { Clock } from "../clock.js";
import type { Config } from "../config.js";
import type { Store } from "../store/store.js";
import { ApiKeys } from "./api-keys.js";
import { ClientAddresses } from "./client-address.js";
import { anonymous, type Principal, type PrincipalRequest } from "./principal.js";

/**
 * Resolves who is calling, for every transport (REST middleware, gRPC interceptor, WebSocket
 * upgrade). Precedence (seed part 5 rule 2): Bearer key, X-API-Key, forwarded address, peer.
 */
export class Authenticator {
  constructor(
    readonly keys: ApiKeys,
    private readonly addresses: ClientAddresses,
  ) {}

  /**
   * The caller's principal. A presented key must be valid: a malformed, unknown or revoked one
   * throws `invalid_api_key` rather than falling back to anonymous (docs/design.md).
   */
  async resolvePrincipal(req: PrincipalRequest): Promise<Principal> {
    const presented = presentedKey(req);
    if (presented === undefined) return anonymous(this.addresses.clientKey(req));
    const key = await this.keys.verify(presented);
    return { accountId: key.accountId, keyId: key.id, tier: key.tier, clientKey: `key:${key.id}` };
  }
}

export function createAuthenticator(config: Config, store: Store, clock: Clock): Authenticator {
  return new Authenticator(
    new ApiKeys(store.auth, clock, config.AUTH_CACHE_MS),
    new ClientAddresses(config.TRUSTED_PROXIES, config.IPV6_PREFIX_LENGTH),
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
