import type { components } from "../gen/openapi/types.js";
import { drawChart } from "./chart.js";
import { addCopyButtons } from "./copy-buttons.js";
import { type ListedEvent, listedEvents, showEvent } from "./event-list.js";
import { fetchJson, follow, throttled } from "./live.js";
import { showLog } from "./log-panel.js";
import { addToSeries } from "./minute-series.js";

// The dashboard's live part: counts from GET /dashboard/stats, kept current by the public events of
// /ws (all_stamps, all_vaults) through the SDK's WebSocket client, which reconnects by itself.

type DashboardStats = components["schemas"]["DashboardStats"];

// A stamp_created event is counted at once. Every other event makes the page fetch the counts
// again (at most once per RECOUNT_DELAY_MS): a vault's new state cannot be counted from its event
// alone (a burn does not say which state it left), and a confirmed stamp means a new checkpoint.
const REFRESH_MS = 30_000;
const RECOUNT_DELAY_MS = 2_000;
const LIVE = "● Live: updates as events arrive";

addCopyButtons();
const root = document.getElementById("dashboard");
if (root) start(root);

function start(root: HTMLElement): void {
  const { statsUrl = "", socketUrl = "", verifyUrl = "" } = root.dataset;
  const logUrl = document.getElementById("log")?.dataset.logUrl ?? "";
  const list = document.getElementById("events")!;
  let current: DashboardStats | undefined;
  const show = (stats: DashboardStats) => {
    current = stats;
    renderStats(stats);
  };
  const refresh = async () => {
    void showLog(logUrl);
    const stats = await fetchJson<DashboardStats>(statsUrl);
    if (stats) show(stats);
  };
  const recount = throttled(refresh, RECOUNT_DELAY_MS);
  const onEvent = (event: ListedEvent) => {
    showEvent(list, event, verifyUrl);
    if (event.type !== "stamp_created") recount();
    else if (current) show(withStamp(current, event.data.timestamp));
  };
  follow({
    url: socketUrl,
    channels: ["all_stamps", "all_vaults"],
    events: Object.keys(listedEvents) as ListedEvent["type"][],
    live: LIVE,
    onEvent: (event) => onEvent(event as ListedEvent),
    onReconnected: refresh,
  });
  // The chart is drawn at its on-screen width: a turned phone or a resized window redraws it.
  new ResizeObserver(() => {
    if (current) drawChart(chart(), current.stamps.per_minute);
  }).observe(chart());
  void refresh();
  setInterval(refresh, REFRESH_MS);
}

function withStamp(stats: DashboardStats, createdAt: string): DashboardStats {
  const { stamps } = stats;
  const perMinute = addToSeries(stamps.per_minute, new Date(createdAt));
  return { ...stats, stamps: { total: stamps.total + 1, per_minute: perMinute } };
}

function renderStats(stats: DashboardStats): void {
  setCount("stamps", stats.stamps.total);
  for (const state of ["active", "released", "expired", "burned", "heartbeats"] as const)
    setCount(state, stats.vaults[state]);
  setCount("vaults", stats.vaults.total);
  setCount("fees", stats.fees.collected);
  setCount("connections", stats.websocket.connections);
  drawChart(chart(), stats.stamps.per_minute);
  const total = stats.stamps.per_minute.counts.reduce((a, b) => a + b, 0);
  document.getElementById("chart-desc")!.textContent =
    `Stamps created in each of the last 60 minutes: ${total} in all.`;
}

function chart(): SVGSVGElement {
  return document.getElementById("chart") as unknown as SVGSVGElement;
}

function setCount(name: string, value: number | string): void {
  const el = document.querySelector(`[data-count="${name}"]`);
  if (el) el.textContent = String(value);
}
