import { conflict } from "../errors.js";
import { findOwnVault, stale, untilWritten } from "./access.js";
import type { VaultDeps } from "./deps.js";
import { newGroupId } from "./ids.js";
import { batchSizeError, durationError, rejectIfAny } from "./limits.js";
import { transition } from "./state.js";
import type { HeartbeatGroupRecord, VaultRecord } from "./vault-repository.js";

export interface CreateGroupInput {
  name: string;
  vaultIds: string[];
  /** Seconds; replaces each member's heartbeat_deadline from its next heartbeat on. */
  interval: number;
}

/**
 * Groups active vaults of the caller that are in no group yet. Deadlines do not move now: the
 * interval applies from each member's next heartbeat, so creating a group never shortens a
 * deadline the owner counted on.
 */
export async function createGroup(
  deps: VaultDeps,
  accountId: string,
  input: CreateGroupInput,
): Promise<HeartbeatGroupRecord> {
  const repeated = new Set(input.vaultIds).size !== input.vaultIds.length;
  rejectIfAny([
    durationError(deps.settings, input.interval, "/body/interval"),
    batchSizeError(deps.settings, input.vaultIds.length, "/body/vault_ids"),
    repeated ? { path: "/body/vault_ids", message: "must NOT have duplicate items" } : undefined,
  ]);
  return untilWritten(async () => {
    const members: VaultRecord[] = [];
    for (const id of input.vaultIds) members.push(await eligibleMember(deps, accountId, id));
    const now = deps.clock.now();
    const group = {
      id: newGroupId(now),
      accountId,
      name: input.name,
      interval: input.interval,
      createdAt: now,
    };
    const record = { ...group, vaultIds: input.vaultIds };
    const outcome = await deps.repo.insertGroup(
      record,
      members.map((m) => ({ id: m.id, version: m.version })),
    );
    return outcome === "applied" ? record : stale;
  });
}

async function eligibleMember(deps: VaultDeps, accountId: string, id: string): Promise<VaultRecord> {
  const vault = await findOwnVault(deps, accountId, id);
  transition(vault.id, vault.state, "join_group");
  if (vault.groupId)
    throw conflict(`vault ${vault.id} is already in group ${vault.groupId}`, "vault_in_group");
  return vault;
}
