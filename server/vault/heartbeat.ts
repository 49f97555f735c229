import { ServiceError } from "../errors.js";
import { findOwnVault, stale, untilWritten } from "./access.js";
import { receiptUsed } from "./create.js";
import type { VaultDeps } from "./deps.js";
import { batchCost } from "./fees/schedule.js";
import { batchSizeError, rejectIfAny } from "./limits.js";
import { nextState, transition } from "./state.js";
import { publishVaultEvent } from "./vault-events.js";
import type { FeePayment, VaultChange, VaultRecord } from "./vault-repository.js";

/** A renewed vault as it is after the heartbeat. */
export interface Renewal {
  vault: VaultRecord;
  heartbeatAt: Date;
}

export interface BatchFailure {
  vaultId: string;
  code: "not_found" | "not_active" | "duplicate";
  detail: string;
}

export interface BatchOutcome {
  renewed: Renewal[];
  failed: BatchFailure[];
}

/** The change a heartbeat makes: deadline = now + the group's interval, or the vault's own deadline. */
function renewal(vault: VaultRecord, now: Date): VaultChange {
  const seconds = vault.groupInterval ?? vault.heartbeatDeadline;
  return {
    id: vault.id,
    version: vault.version,
    set: {
      state: transition(vault.id, vault.state, "heartbeat"),
      deadline: new Date(now.getTime() + seconds * 1000),
      lastHeartbeat: now,
      heartbeatCount: vault.heartbeatCount + 1,
    },
  };
}

function announce(deps: VaultDeps, vault: VaultRecord, change: VaultChange): Renewal {
  const renewed = { ...vault, ...change.set, version: vault.version + 1 };
  const heartbeatAt = change.set.lastHeartbeat!;
  publishVaultEvent(deps.events, "vault_heartbeat", vault, {
    vaultId: vault.id,
    heartbeatAt: heartbeatAt.toISOString(),
    nextDeadline: renewed.deadline.toISOString(),
    heartbeatCount: renewed.heartbeatCount,
  });
  return { vault: renewed, heartbeatAt };
}

/**
 * Renews an active vault of the caller; the receipt is recorded in the same transaction. This
 * process's heartbeats of one vault take turns (vault-locks.ts), so parallel ones do not race.
 */
export function heartbeat(
  deps: VaultDeps,
  accountId: string,
  vaultId: string,
  receipt: string,
): Promise<Renewal> {
  return deps.locks.with([vaultId], () => renew(deps, accountId, vaultId, receipt));
}

function renew(deps: VaultDeps, accountId: string, vaultId: string, receipt: string): Promise<Renewal> {
  return untilWritten(async () => {
    const vault = await findOwnVault(deps, accountId, vaultId);
    transition(vault.id, vault.state, "heartbeat");
    const payment = await deps.receipts.accept(receipt, deps.fees.heartbeatFee, {
      what: "a heartbeat",
      usedFor: `heartbeat ${vault.id}`,
    });
    const change = renewal(vault, payment.usedAt);
    const outcome = await deps.repo.update([change], payment);
    if (outcome === "stale") return stale;
    if (outcome === "receipt_used") throw receiptUsed(payment.receiptId);
    return announce(deps, vault, change);
  });
}

/**
 * Renews each listed vault that can be renewed, reporting the others; one receipt pays for the
 * distinct ids listed and is consumed only when at least one vault is renewed. The renewals and
 * the receipt are one transaction.
 */
export async function batchHeartbeat(
  deps: VaultDeps,
  accountId: string,
  vaultIds: string[],
  receipt: string,
): Promise<BatchOutcome> {
  rejectIfAny([batchSizeError(deps.settings, vaultIds.length, "/body/vault_ids")]);
  const distinct = new Set(vaultIds).size;
  const payment = await deps.receipts.accept(receipt, batchCost(deps.fees, distinct), {
    what: `this batch of ${distinct} vault${distinct === 1 ? "" : "s"}`,
    usedFor: "batch",
  });
  return deps.locks.with(vaultIds, () => renewBatch(deps, accountId, vaultIds, payment));
}

function renewBatch(
  deps: VaultDeps,
  accountId: string,
  vaultIds: string[],
  payment: FeePayment,
): Promise<BatchOutcome> {
  return untilWritten(async () => {
    const now = deps.clock.now();
    const { candidates, failed } = await sortBatch(deps, accountId, vaultIds);
    if (candidates.length === 0) return { renewed: [], failed };
    const changes = candidates.map((v) => renewal(v, now));
    const usedFor = `batch heartbeat ${changes.map((c) => c.id).join(" ")}`;
    const outcome = await deps.repo.update(changes, { ...payment, usedAt: now, usedFor });
    if (outcome === "stale") return stale;
    if (outcome === "receipt_used") throw receiptUsed(payment.receiptId);
    return { renewed: candidates.map((v, i) => announce(deps, v, changes[i]!)), failed };
  });
}

/** Splits the listed ids into renewable vaults and failures, keeping the order they were sent in. */
async function sortBatch(deps: VaultDeps, accountId: string, vaultIds: string[]) {
  const seen = new Set<string>();
  const candidates: VaultRecord[] = [];
  const failed: BatchFailure[] = [];
  for (const vaultId of vaultIds) {
    if (seen.has(vaultId)) {
      failed.push({ vaultId, code: "duplicate", detail: `vault ${vaultId} was listed before` });
      continue;
    }
    seen.add(vaultId);
    const vault = await findOwnVault(deps, accountId, vaultId).catch(unlessNotFound);
    if (!vault) failed.push({ vaultId, code: "not_found", detail: `vault ${vaultId} not found` });
    else if (!nextState(vault.state, "heartbeat")) {
      failed.push({ vaultId, code: "not_active", detail: `vault ${vaultId} is ${vault.state}` });
    } else candidates.push(vault);
  }
  return { candidates, failed };
}

/** A missing vault is a reported failure in a batch; any other error still fails the request. */
function unlessNotFound(err: unknown): undefined {
  if (err instanceof ServiceError && err.code === "not_found") return undefined;
  throw err;
}
