/** Rate-limit tiers of seed part 8.1. */
export type Tier = "anonymous" | "authenticated" | "premium" | "internal";

/**
 * Who is calling, as every transport resolves it (REST: `req.principal`; gRPC: context value;
 * WebSocket: per connection). Domain code receives the account id, never the key itself.
 */
export interface Principal {
  /** The account an API key belongs to; null for anonymous callers. */
  accountId: string | null;
  /** The id of the key used (not the key), for audit and listing; null for anonymous callers. */
  keyId: string | null;
  tier: Tier;
  /** The rate-limit identity: `key:<keyId>` for keys, `ip:<address or IPv6 prefix>` otherwise. */
  clientKey: string;
}

export const anonymous = (clientKey: string): Principal => ({
  accountId: null,
  keyId: null,
  tier: "anonymous",
  clientKey,
});
