import type { Principal } from "../auth/principal.js";
import type { RateLimiter } from "./limiter.js";
import { RateLimitedError } from "./rate-limited.js";

/**
 * What a refused API key costs, whatever the path: a key guesser would otherwise pick the cheapest
 * path (`/presets`, 0.1) and guess ten times faster (docs/design.md "Rate limiting").
 */
export const FAILED_AUTH_WEIGHT = 1;

/**
 * Charges a refused key to the anonymous bucket of the address it came from, so that guessing keys
 * is throttled like any anonymous traffic from that address: once the bucket is empty the answer is
 * a 429 (RateLimitedError) instead of the 401. Valid keys have buckets of their own and are not
 * slowed by a guesser sharing their address.
 */
export function failedAuthCharge(limiter: RateLimiter): (client: Principal) => Promise<void> {
  return async (client) => {
    const decision = await limiter.consume(client, "/", FAILED_AUTH_WEIGHT);
    if (decision && !decision.allowed) throw new RateLimitedError(decision);
  };
}
