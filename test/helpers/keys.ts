import type { KeyTier } from "../../server/auth/principal.js";
import type { RunningService } from "./service.js";

export interface IssuedTestKey {
  key: string;
  keyId: string;
  accountId: string;
}

/**
 * Issues an API key on a running service the way `stampd keys create` does, through the same
 * store. Without `accountId` a new account is created; pass one to give an account a second key.
 */
export async function issueKey(
  svc: RunningService,
  opts: { tier?: KeyTier; accountId?: string } = {},
): Promise<IssuedTestKey> {
  const issued = await svc.service.ctx.auth.keys.create({
    tier: opts.tier ?? "authenticated",
    accountId: opts.accountId,
  });
  return { key: issued.key, keyId: issued.keyId, accountId: issued.accountId };
}
