import { rateLimitTiers } from "../../gen/openapi/enums.js";
import type { components } from "../../gen/openapi/types.js";

/** Rate-limit tiers (specs/openapi.yaml RateLimitTier; docs/design.md, Rate limiting). */
export type Tier = components["schemas"]["RateLimitTier"];
export type KeyTier = Exclude<Tier, "anonymous">;

/** The tiers a key can carry; `anonymous` is what a caller without a key gets. */
export const keyTiers = rateLimitTiers.filter((tier): tier is KeyTier => tier !== "anonymous");

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

/**
 * What a transport knows about a caller, as raw header values. Taken in this order
 * (specs/openapi.yaml info, Authentication, Precedence):
 * Bearer key, then X-API-Key, then X-Forwarded-For / X-Real-IP (from a trusted proxy only), then
 * the peer address.
 */
export interface PrincipalRequest {
  /** The `Authorization` header (or gRPC `authorization` metadata). */
  authorization?: string;
  /** The `X-API-Key` header (or gRPC `x-api-key` metadata, WebSocket `api_key` parameter). */
  apiKey?: string;
  /** The `X-Forwarded-For` header, as received (several headers joined with commas). */
  forwardedFor?: string;
  /** The `X-Real-IP` header. */
  realIp?: string;
  /** The address of the direct peer of the connection; undefined when the socket has gone. */
  peerAddress: string | undefined;
}

export const anonymous = (clientKey: string): Principal => ({
  accountId: null,
  keyId: null,
  tier: "anonymous",
  clientKey,
});
