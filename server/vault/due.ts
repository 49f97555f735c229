import type { VaultDeps } from "./deps.js";
import { statesAllowing, targetOf } from "./state.js";
import { burnedEvent, expiredEvent, warningEvent } from "./vault-events.js";
import type { VaultRecord } from "./vault-repository.js";

/** Vaults claimed per statement; a pass repeats until a claim comes back short. */
const claimBatch = 500;

async function drain(claim: () => Promise<VaultRecord[]>, each: (v: VaultRecord) => void): Promise<number> {
  let total = 0;
  for (;;) {
    const claimed = await claim();
    claimed.forEach(each);
    total += claimed.length;
    if (claimed.length < claimBatch) return total;
  }
}

/** Moves active vaults whose deadline has passed to expired and announces each once. */
export function expireDue(deps: VaultDeps, ids?: string[]): Promise<number> {
  const now = deps.clock.now();
  const claim = { from: statesAllowing("expire"), to: targetOf("expire"), now, limit: claimBatch, ids };
  return drain(
    () => deps.repo.claimExpired(claim),
    (v) => expiredEvent(deps.events, v, now),
  );
}

/** Burns released/expired vaults whose key nobody retrieved within VAULT_RETENTION_SECONDS. */
export function burnUnretrieved(deps: VaultDeps, ids?: string[]): Promise<number> {
  const now = deps.clock.now();
  const releasedBefore = new Date(now.getTime() - deps.settings.VAULT_RETENTION_SECONDS * 1000);
  const action = "retention_burn" as const;
  const claim = {
    from: statesAllowing(action),
    to: targetOf(action),
    now,
    limit: claimBatch,
    ids,
    releasedBefore,
  };
  return drain(
    () => deps.repo.claimRetentionBurns(claim),
    (v) => burnedEvent(deps.events, v, now),
  );
}

/** Announces deadlines less than VAULT_WARNING_LEAD_SECONDS away, once per deadline (0 turns warnings off). */
export function warnDue(deps: VaultDeps): Promise<number> {
  const now = deps.clock.now();
  const warnUntil = new Date(now.getTime() + deps.settings.VAULT_WARNING_LEAD_SECONDS * 1000);
  return drain(
    () => deps.repo.claimWarnings({ now, warnUntil, limit: claimBatch }),
    (v) => warningEvent(deps.events, v, now),
  );
}

/** Whether `vault` has a scheduled transition already due, which reads apply before answering. */
export function isDue(deps: VaultDeps, vault: VaultRecord): boolean {
  const now = deps.clock.now().getTime();
  if (vault.state === "active") return vault.deadline.getTime() <= now;
  const retention = deps.settings.VAULT_RETENTION_SECONDS * 1000;
  return (
    statesAllowing("retention_burn").includes(vault.state) &&
    vault.retrievedAt === null &&
    vault.releasedAt !== null &&
    vault.releasedAt.getTime() <= now - retention
  );
}
