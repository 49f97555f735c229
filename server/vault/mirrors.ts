import { conflict } from "../errors.js";
import { findOwnVault, stale, untilWritten } from "./access.js";
import { contentUriErrors } from "./content-uris.js";
import type { VaultDeps } from "./deps.js";
import { maxContentUris, rejectIfAny } from "./limits.js";
import { transition } from "./state.js";

/** Appends a content URI to the caller's vault; a URI already listed changes nothing. */
export async function addMirror(
  deps: VaultDeps,
  accountId: string,
  vaultId: string,
  uri: string,
): Promise<string[]> {
  rejectIfAny(contentUriErrors([uri], "/body/uri", true));
  return untilWritten(async () => {
    const vault = await findOwnVault(deps, accountId, vaultId);
    const state = transition(vault.id, vault.state, "add_mirror");
    if (vault.contentUris.includes(uri)) return vault.contentUris;
    if (vault.contentUris.length >= maxContentUris) {
      throw conflict(`vault ${vault.id} already has ${maxContentUris} content URIs`, "too_many_mirrors");
    }
    const contentUris = [...vault.contentUris, uri];
    const outcome = await deps.repo.update([
      { id: vault.id, version: vault.version, set: { state, contentUris } },
    ]);
    return outcome === "applied" ? contentUris : stale;
  });
}
