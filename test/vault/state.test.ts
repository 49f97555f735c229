import { describe, expect, it } from "vitest";
import { ServiceError } from "../../server/errors.js";
import {
  nextState,
  statesAllowing,
  targetOf,
  transition,
  type VaultAction,
  type VaultState,
} from "../../server/vault/state.js";

const id = "vlt_01JD3Y2B8C4D6E7F9G0H1J2K3M";

// Every (state, action) pair: where it leads, or the 409 reason it is refused with.
const table: [VaultState, VaultAction, VaultState | string][] = [
  ["active", "heartbeat", "active"],
  ["active", "release", "released"],
  ["active", "expire", "expired"],
  ["active", "burn", "burned"],
  ["active", "add_mirror", "active"],
  ["active", "join_group", "active"],
  ["active", "retrieve", "refused:vault_not_retrievable"],
  ["active", "retention_burn", "refused:vault_not_retrievable"],
  ["released", "retrieve", "released"],
  ["released", "burn", "burned"],
  ["released", "retention_burn", "burned"],
  ["released", "add_mirror", "released"],
  ["released", "heartbeat", "refused:vault_not_active"],
  ["released", "release", "refused:vault_not_active"],
  ["released", "expire", "refused:vault_not_active"],
  ["released", "join_group", "refused:vault_not_active"],
  ["expired", "retrieve", "expired"],
  ["expired", "burn", "burned"],
  ["expired", "retention_burn", "burned"],
  ["expired", "add_mirror", "expired"],
  ["expired", "heartbeat", "refused:vault_not_active"],
  ["expired", "release", "refused:vault_not_active"],
  ["expired", "expire", "refused:vault_not_active"],
  ["expired", "join_group", "refused:vault_not_active"],
  ["burned", "heartbeat", "refused:vault_not_active"],
  ["burned", "release", "refused:vault_not_active"],
  ["burned", "expire", "refused:vault_not_active"],
  ["burned", "join_group", "refused:vault_not_active"],
  ["burned", "retrieve", "refused:vault_not_retrievable"],
  ["burned", "retention_burn", "refused:vault_not_retrievable"],
  ["burned", "burn", "refused:vault_burned"],
  ["burned", "add_mirror", "refused:vault_burned"],
];

describe("the vault state machine", () => {
  it.each(table)("%s + %s → %s", (state, action, want) => {
    if (!want.startsWith("refused:")) {
      expect(transition(id, state, action)).toBe(want);
      return;
    }
    expect(nextState(state, action)).toBeUndefined();
    let thrown: unknown;
    try {
      transition(id, state, action);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ServiceError);
    expect(thrown).toMatchObject({ code: "conflict", reason: want.slice("refused:".length) });
  });

  it("covers every state and action", () => {
    const states = new Set(table.map(([s]) => s));
    const actions = new Set(table.map(([, a]) => a));
    expect(states.size * actions.size).toBe(table.length);
  });

  it("gives the scheduler's claims their source states and single target", () => {
    expect(statesAllowing("expire")).toEqual(["active"]);
    expect(targetOf("expire")).toBe("expired");
    expect(statesAllowing("retention_burn").sort()).toEqual(["expired", "released"]);
    expect(targetOf("retention_burn")).toBe("burned");
  });

  it("names the state in the refusal", () => {
    expect(() => transition(id, "expired", "heartbeat")).toThrow(`vault ${id} is expired, not active`);
  });
});
