import type { DashboardStats } from "./dashboard-stats.js";
import { html, type SafeHtml } from "./html.js";
import { layout } from "./layout.js";
import { linkTo } from "./links.js";

/**
 * GET /dashboard. Rendered with the current counts, so it reads well before (and without) its
 * script; the script (client/dashboard.ts) then keeps counts, chart and events live over /ws.
 */
export function dashboardPage(base: string, stats: DashboardStats): string {
  const socketUrl = `${base.replace(/^http/, "ws")}/ws`;
  const main = html`<h1>Dashboard</h1>
<div class="live" id="dashboard" data-stats-url="${linkTo(base, "dashboard", "stats")}" data-socket-url="${socketUrl}" data-verify-url="${linkTo(base, "verify")}">
<p class="connection" id="connection" role="status">Not connected: live updates need JavaScript.</p>
${counts(stats)}
<section aria-labelledby="chart-title">
<h2 id="chart-title">Stamps per minute</h2>
<figure class="chart">
<svg id="chart" role="img" aria-labelledby="chart-desc" viewBox="0 0 600 200"></svg>
<figcaption id="chart-desc">Stamps created in each of the last 60 minutes: ${sum(stats.stamps.per_minute.counts)} in all.</figcaption>
</figure>
</section>
${checkpoint(base)}
<section aria-labelledby="events-title">
<h2 id="events-title">Recent events</h2>
<p class="note">Public events of the channels <code>all_stamps</code> and <code>all_vaults</code>, newest first.</p>
<ol class="events" id="events" aria-live="polite"></ol>
</section>
</div>`;
  return layout({ base, title: "Dashboard", main, script: "dashboard" });
}

function counts(stats: DashboardStats): SafeHtml {
  const { vaults, fees } = stats;
  return html`<section aria-labelledby="counts-title">
<h2 id="counts-title">Counts</h2>
<dl class="counts">
${count("stamps", "Stamps", stats.stamps.total)}
${count("batches", "Batches sealed", "–")}
${count("vaults", "Vaults", vaults.total)}
${count("active", "Active vaults", vaults.active)}
${count("released", "Released vaults", vaults.released)}
${count("expired", "Expired vaults", vaults.expired)}
${count("burned", "Burned vaults", vaults.burned)}
${count("heartbeats", "Heartbeats", vaults.heartbeats)}
${count("fees", `Fees collected (${fees.currency})`, fees.collected)}
${count("connections", "WebSocket connections", stats.websocket.connections)}
</dl>
</section>`;
}

/** Filled in by the page script from GET /log, when this deployment runs the transparency log. */
function checkpoint(base: string): SafeHtml {
  return html`<section aria-labelledby="log-title" id="log" data-log-url="${linkTo(base, "log")}">
<h2 id="log-title">Latest checkpoint</h2>
<p id="log-status">The transparency log's latest signed checkpoint is shown here when this service publishes one at <code>/log</code>.</p>
<dl class="details" id="log-details" hidden>
<div><dt>Log</dt><dd data-log="origin"></dd></div>
<div><dt>Tree size (batches)</dt><dd data-log="tree_size"></dd></div>
<div><dt>Root hash</dt><dd><code class="value" data-log="root_hash" data-copy="root hash"></code></dd></div>
<div><dt>Signed checkpoint</dt><dd><pre class="checkpoint" data-log="checkpoint"></pre></dd></div>
</dl>
</section>`;
}

const count = (name: string, label: string, value: number | string) =>
  html`<div class="count"><dt>${label}</dt><dd data-count="${name}">${value}</dd></div>`;

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
