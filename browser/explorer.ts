import type { components } from "../gen/openapi/types.js";
import {
  caption,
  neighbours,
  stateNames,
  type VaultList,
  type VaultState,
} from "../server/pages/explorer-list.js";
import { plural, readableTime } from "../server/pages/format.js";
import { fetchJson, follow, throttled } from "./live.js";

// The explorer's live part: the page the server rendered (one filtered page of vaults and the
// network statistics) is fetched again from /explorer/api whenever a vault event arrives on the
// public channel `all_vaults`, and redrawn in place. Events are not applied one by one: a new
// vault moves every row of a newest-first page, and a burn does not say which state it left.

type ExplorerStats = components["schemas"]["ExplorerStats"];
type Vault = components["schemas"]["ExplorerVaultItem"];

const EVENTS = [
  "vault_created",
  "vault_heartbeat",
  "vault_released",
  "vault_expired",
  "vault_burned",
] as const;
// Events come in bursts (a batch heartbeat, an expiry sweep): one fetch covers a burst.
const REFETCH_DELAY_MS = 300;
const LIVE = "● Live: updates as vaults change";

const root = document.getElementById("explorer");
if (root) start(root);

function start(root: HTMLElement): void {
  const { socketUrl = "", vaultsUrl = "", statsUrl = "", base = "", limit = "", offset = "" } = root.dataset;
  const state = (root.dataset.state || undefined) as VaultState | undefined;
  const query = new URLSearchParams({ limit, offset });
  if (state) query.set("state", state);
  const rows = document.getElementById("vault-rows")!;
  let shown = new Set(
    Array.from(rows.querySelectorAll<HTMLElement>("[data-vault]"), (row) => row.dataset.vault),
  );
  const refresh = async () => {
    const [list, stats] = await Promise.all([
      fetchJson<VaultList>(`${vaultsUrl}?${query}`),
      fetchJson<ExplorerStats>(statsUrl),
    ]);
    if (list) {
      rows.replaceChildren(...list.items.map((vault) => vaultRow(vault, !shown.has(vault.id))));
      shown = new Set(list.items.map((vault) => vault.id));
      document.getElementById("vaults-caption")!.textContent = caption(list, state);
      renderPager(base, list, state);
    }
    if (stats) renderStats(stats);
  };
  follow({
    url: socketUrl,
    channels: ["all_vaults"],
    events: EVENTS,
    live: LIVE,
    onEvent: throttled(refresh, REFETCH_DELAY_MS),
    onReconnected: refresh,
  });
}

/** One row as the server draws it (explorer-page.ts), built with textContent only. */
function vaultRow(vault: Vault, fresh: boolean): HTMLTableRowElement {
  const row = document.createElement("tr");
  row.dataset.vault = vault.id;
  if (fresh) row.className = "fresh";
  const head = document.createElement("th");
  head.scope = "row";
  const id = document.createElement("code");
  id.className = "value";
  id.textContent = vault.id;
  head.append(id);
  const stateName = document.createElement("span");
  stateName.className = `state state-${vault.state}`;
  stateName.textContent = stateNames[vault.state];
  const heartbeats = cell("Heartbeats", String(vault.heartbeat_count));
  heartbeats.className = "number";
  row.append(
    head,
    cell("State", stateName),
    cell("Created", time(vault.created_at)),
    cell("Deadline", time(vault.deadline)),
    heartbeats,
  );
  return row;
}

function cell(label: string, content: Node | string): HTMLTableCellElement {
  const td = document.createElement("td");
  td.dataset.label = label;
  td.append(content);
  return td;
}

function time(iso: string): HTMLTimeElement {
  const el = document.createElement("time");
  el.dateTime = iso;
  el.textContent = readableTime(iso);
  return el;
}

function renderPager(base: string, list: VaultList, state: VaultState | undefined): void {
  const { newer, older } = neighbours(base, list, state);
  const step = (url: string | undefined, text: string, rel: string) => {
    const item = document.createElement("li");
    const el = document.createElement(url ? "a" : "span");
    el.textContent = text;
    if (url) {
      (el as HTMLAnchorElement).href = url;
      (el as HTMLAnchorElement).rel = rel;
    }
    item.append(el);
    return item;
  };
  const range = document.createElement("li");
  range.className = "range";
  range.textContent = `${plural(list.total, "vault")} in all`;
  document
    .getElementById("pager")!
    .replaceChildren(step(newer, "← Newer", "prev"), step(older, "Older →", "next"), range);
}

function renderStats(stats: ExplorerStats): void {
  for (const [name, value] of Object.entries(stats)) {
    const el = document.querySelector(`[data-stat="${name}"]`);
    if (el) el.textContent = String(value);
  }
}
