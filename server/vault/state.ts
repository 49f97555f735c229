import type { components } from "../../gen/openapi/types.js";
import { conflict, type ErrorReason } from "../errors.js";

export type VaultState = components["schemas"]["VaultState"];

/** Everything that can happen to a vault (docs/design.md, Vault state machine). */
export type VaultAction =
  | "heartbeat"
  | "release"
  | "expire"
  | "retrieve"
  | "burn"
  | "retention_burn"
  | "add_mirror"
  | "join_group";

/**
 * The vault state machine, the one place that says which action is allowed in which state and
 * where it leads. Every operation and every scheduler claim asks it; an action missing from a
 * state's row is refused with the action's reason below.
 */
const transitions: Record<VaultState, Partial<Record<VaultAction, VaultState>>> = {
  active: {
    heartbeat: "active",
    release: "released",
    expire: "expired",
    burn: "burned",
    add_mirror: "active",
    join_group: "active",
  },
  released: { retrieve: "released", burn: "burned", retention_burn: "burned", add_mirror: "released" },
  expired: { retrieve: "expired", burn: "burned", retention_burn: "burned", add_mirror: "expired" },
  burned: {},
};

const refusals: Record<VaultAction, ErrorReason> = {
  heartbeat: "vault_not_active",
  release: "vault_not_active",
  expire: "vault_not_active",
  join_group: "vault_not_active",
  retrieve: "vault_not_retrievable",
  retention_burn: "vault_not_retrievable",
  burn: "vault_burned",
  add_mirror: "vault_burned",
};

/** The state `action` leads to from `state`, or undefined when the table refuses it. */
export function nextState(state: VaultState, action: VaultAction): VaultState | undefined {
  return transitions[state][action];
}

/** Like nextState, but a refusal is the 409 the spec names for the action. */
export function transition(vaultId: string, state: VaultState, action: VaultAction): VaultState {
  const next = nextState(state, action);
  if (next) return next;
  const reason = refusals[action];
  throw conflict(refusalDetail(vaultId, state, reason), reason);
}

/** The states from which `action` is allowed: the scheduler's claims select vaults by these. */
export function statesAllowing(action: VaultAction): VaultState[] {
  return (Object.keys(transitions) as VaultState[]).filter((s) => transitions[s][action] !== undefined);
}

/** The single state `action` leads to (the scheduler's actions each have one target). */
export function targetOf(action: VaultAction): VaultState {
  const targets = new Set(statesAllowing(action).map((s) => transitions[s][action]!));
  if (targets.size !== 1) throw new Error(`action ${action} has no single target state`);
  return [...targets][0]!;
}

function refusalDetail(vaultId: string, state: VaultState, reason: ErrorReason): string {
  if (reason === "vault_not_retrievable") {
    return `vault ${vaultId} is ${state}; the key can be retrieved only once it is released or expired`;
  }
  if (reason === "vault_burned") return `vault ${vaultId} is burned`;
  return `vault ${vaultId} is ${state}, not active`;
}
