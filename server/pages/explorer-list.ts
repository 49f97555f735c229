import type { components } from "../../gen/openapi/types.js";
import type { VaultState } from "../vault/state.js";
import { linkTo } from "./links.js";

// What the explorer page's server rendering and its live script (client/explorer.ts) share, so
// that a list redrawn in the browser reads and links exactly as the server drew it.

type Schemas = components["schemas"];

export type { VaultState };
export type VaultList = Schemas["ExplorerVaultList"];

/** The page size of GET /explorer when the query names none (its spec default). */
export const DEFAULT_LIMIT = 20;

/** The filter links, in this order, after "All". */
export const stateNames: Record<VaultState, string> = {
  active: "Active",
  released: "Released",
  expired: "Expired",
  burned: "Burned",
};

/** The explorer page's address for a filter and an offset (defaults left out of the query). */
export function listUrl(base: string, state: VaultState | undefined, offset: number, limit: number): string {
  const query = new URLSearchParams();
  if (state) query.set("state", state);
  if (offset > 0) query.set("offset", String(offset));
  if (limit !== DEFAULT_LIMIT) query.set("limit", String(limit));
  const text = query.toString();
  return `${linkTo(base, "explorer")}${text ? `?${text}` : ""}`;
}

/** Where the "Newer" and "Older" links of a page of the list point, when there is such a page. */
export function neighbours(base: string, list: VaultList, state?: VaultState) {
  const { offset, limit, total } = list;
  return {
    newer: offset > 0 ? listUrl(base, state, Math.max(0, offset - limit), limit) : undefined,
    older: offset + limit < total ? listUrl(base, state, offset + limit, limit) : undefined,
  };
}

/** "Vaults 1–20 of 57, newest first" (with the filter named), or that there are none. */
export function caption(list: VaultList, state?: VaultState): string {
  const which = state ? `${stateNames[state]} vaults` : "Vaults";
  if (list.items.length === 0)
    return list.total === 0 ? `${which}: none yet.` : `${which}: none on this page (${list.total} in all).`;
  const last = list.offset + list.items.length;
  return `${which} ${list.offset + 1}–${last} of ${list.total}, newest first`;
}
