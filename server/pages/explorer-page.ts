import type { components } from "../../gen/openapi/types.js";
import {
  caption,
  DEFAULT_LIMIT,
  listUrl,
  neighbours,
  stateNames,
  type VaultList,
  type VaultState,
} from "./explorer-list.js";
import { plural, readableTime } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import { layout } from "./layout.js";
import { linkTo } from "./links.js";

type Schemas = components["schemas"];

/** What the explorer page shows: one page of the vault list and the network statistics. */
export interface ExplorerView {
  vaults: VaultList;
  /** The state filter of the list, when one is set. */
  state?: VaultState;
  stats: Schemas["ExplorerStats"];
}

/**
 * GET /explorer. Rendered complete (statistics, the filtered page of vaults, filter and paging as
 * plain links, which the CSP's `form-action 'none'` leaves working), so it reads without its
 * script; the script (client/explorer.ts) then follows `all_vaults` over /ws and fetches the same
 * page and statistics again from /explorer/api when a vault changes.
 */
export function explorerPage(base: string, view: ExplorerView): string {
  const { vaults, state } = view;
  const main = html`<h1>Explorer</h1>
<p class="note">Every vault of this service, of every account, as anyone may see it: ids, states, times and heartbeat counts, never keys, owners, addresses or metadata.</p>
<div class="live" id="explorer" data-socket-url="${base.replace(/^http/, "ws")}/ws" data-vaults-url="${linkTo(base, "explorer", "api", "vaults")}" data-stats-url="${linkTo(base, "explorer", "api", "stats")}" data-base="${base}" data-state="${state ?? ""}" data-limit="${vaults.limit}" data-offset="${vaults.offset}">
<p class="connection" id="connection" role="status">Not connected: live updates need JavaScript.</p>
${statistics(view.stats)}
<section aria-labelledby="vaults-title">
<h2 id="vaults-title">Vaults</h2>
${filters(base, state)}
<table class="vaults stack">
<caption id="vaults-caption">${caption(vaults, state)}</caption>
<thead><tr><th scope="col">Vault</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Deadline</th><th scope="col">Heartbeats</th></tr></thead>
<tbody id="vault-rows">
${vaults.items.map(vaultRow)}
</tbody>
</table>
${pager(base, vaults, state)}
</section>
</div>`;
  return layout({ base, title: "Explorer", main, script: "explorer" });
}

function statistics(stats: Schemas["ExplorerStats"]): SafeHtml {
  return html`<section aria-labelledby="stats-title">
<h2 id="stats-title">Network statistics</h2>
<dl class="counts">
${stat("total_vaults", "Vaults", stats.total_vaults)}
${stat("active_vaults", "Active vaults", stats.active_vaults)}
${stat("total_heartbeats", "Heartbeats", stats.total_heartbeats)}
${stat("total_releases", "Releases", stats.total_releases)}
${stat("total_burns", "Burns", stats.total_burns)}
${stat("total_fees_collected", `Fees collected (${stats.fee_currency})`, stats.total_fees_collected)}
</dl>
</section>`;
}

const stat = (name: keyof Schemas["ExplorerStats"], label: string, value: number | string) =>
  html`<div class="count"><dt>${label}</dt><dd data-stat="${name}">${value}</dd></div>`;

function filters(base: string, current: VaultState | undefined): SafeHtml {
  const link = (state: VaultState | undefined, name: string) =>
    html`<li><a href="${listUrl(base, state, 0, DEFAULT_LIMIT)}"${state === current ? html` aria-current="page"` : ""}>${name}</a></li>`;
  return html`<nav aria-label="Filter vaults by state"><ul class="filters">
${link(undefined, "All")}
${(Object.keys(stateNames) as VaultState[]).map((state) => link(state, stateNames[state]))}
</ul></nav>`;
}

function vaultRow(vault: Schemas["ExplorerVaultItem"]): SafeHtml {
  return html`<tr data-vault="${vault.id}">
<th scope="row"><code class="value">${vault.id}</code></th>
<td data-label="State"><span class="state state-${vault.state}">${stateNames[vault.state]}</span></td>
<td data-label="Created"><time datetime="${vault.created_at}">${readableTime(vault.created_at)}</time></td>
<td data-label="Deadline"><time datetime="${vault.deadline}">${readableTime(vault.deadline)}</time></td>
<td data-label="Heartbeats" class="number">${vault.heartbeat_count}</td>
</tr>`;
}

function pager(base: string, list: VaultList, state: VaultState | undefined): SafeHtml {
  const { newer, older } = neighbours(base, list, state);
  const step = (url: string | undefined, text: string, rel: string) =>
    url ? html`<li><a href="${url}" rel="${rel}">${text}</a></li>` : html`<li><span>${text}</span></li>`;
  return html`<nav aria-label="Pages of vaults"><ul class="pager" id="pager">
${step(newer, "← Newer", "prev")}
${step(older, "Older →", "next")}
<li class="range">${plural(list.total, "vault")} in all</li>
</ul></nav>`;
}
