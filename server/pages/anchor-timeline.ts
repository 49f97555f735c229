import type { components } from "../../gen/openapi/types.js";
import { anchorName, readableTime } from "./format.js";
import { html, type SafeHtml } from "./html.js";

type StampResponse = components["schemas"]["StampResponse"];
type AnchorState = components["schemas"]["AnchorState"];

const time = (iso: string) => html`<time datetime="${iso}">${readableTime(iso)}</time>`;

/**
 * The stamp's life (stamped → confirmed in a signed batch → anchored) as an ordered list whose
 * steps say in words whether they are done, then one row per requested anchor.
 */
export function anchorTimeline(stamp: StampResponse): SafeHtml {
  const confirmed = stamp.status === "confirmed" || stamp.status === "anchored";
  const anchored = stamp.status === "anchored";
  return html`<section aria-labelledby="timeline-title">
<h2 id="timeline-title">Anchor timeline</h2>
<ol class="timeline">
${step(true, "Stamped", html`${time(stamp.created_at)}: hashed and signed by the service.`)}
${step(confirmed, "Confirmed", "Sealed in a batch the service signed.")}
${step(anchored, "Anchored", anchoredText(stamp))}
</ol>
${anchorTable(stamp)}
</section>`;
}

function step(done: boolean, name: string, text: SafeHtml | string): SafeHtml {
  return html`<li class="step ${done ? "step-done" : "step-waiting"}">
<span class="step-state">${done ? "Done" : "Waiting"}</span>
<strong>${name}</strong> <span>${text}</span>
</li>`;
}

function anchoredText(stamp: StampResponse): string {
  if (stamp.anchors.length === 0) return "No anchors were requested.";
  return "Every requested anchor that can confirm has confirmed.";
}

function anchorTable(stamp: StampResponse): SafeHtml | string {
  if (stamp.anchors.length === 0) return "";
  // data-label names each cell where narrow screens stack a row's cells (pages.css, "stack").
  return html`<table class="anchors stack">
<caption>Requested anchors</caption>
<thead><tr><th scope="col">Anchor</th><th scope="col">Requested</th><th scope="col">State</th><th scope="col">Confirmed</th><th scope="col">Reference</th></tr></thead>
<tbody>
${stamp.anchors.map((anchor) => anchorRow(anchor, stamp.created_at))}
</tbody>
</table>`;
}

function anchorRow(anchor: AnchorState, requestedAt: string): SafeHtml {
  return html`<tr class="anchor anchor-${anchor.status}">
<th scope="row">${anchorName(anchor.type)}</th>
<td data-label="Requested">${time(requestedAt)}</td>
<td data-label="State">${anchorStateText(anchor)}</td>
<td data-label="Confirmed">${anchor.confirmed_at ? time(anchor.confirmed_at) : "–"}</td>
<td data-label="Reference">${anchor.reference ? html`<code class="value" data-copy="anchor reference">${anchor.reference}</code>` : "–"}</td>
</tr>`;
}

function anchorStateText(anchor: AnchorState): string {
  if (anchor.status === "confirmed") return "Confirmed";
  if (anchor.status === "failed") return `Failed: ${anchor.reason ?? "no reason given"}`;
  return anchor.reason ? `Pending: ${anchor.reason}` : "Pending";
}
