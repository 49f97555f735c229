import { stampStatus } from "../../core/trust.js";
import type { VerifyDetails } from "../../core/types.js";
import type { components } from "../../gen/openapi/types.js";
import { anchorName, plural, readableTime } from "./format.js";
import { html, type SafeHtml } from "./html.js";

type StampResponse = components["schemas"]["StampResponse"];
type AnchorState = components["schemas"]["AnchorState"];

/** Where a step stands, in the words the page shows (the class only styles them). */
type StepState = "done" | "waiting" | "not-requested" | "blocked";

const stepWords: Record<StepState, string> = {
  done: "Done",
  waiting: "Waiting",
  "not-requested": "Not requested",
  blocked: "Will not complete",
};

const time = (iso: string) => html`<time datetime="${iso}">${readableTime(iso)}</time>`;

/**
 * The stamp's life (stamped → sealed in a signed batch → in a signed log checkpoint → anchored)
 * as an ordered list whose steps say in words where they stand, then one row per requested
 * anchor. The steps come from the same verification as the verdict and the score; "Anchored" is
 * done exactly when the status is `anchored`.
 */
export function anchorTimeline(stamp: StampResponse, details: VerifyDetails): SafeHtml {
  const { sealed, logged } = details;
  return html`<section aria-labelledby="timeline-title">
<h2 id="timeline-title">Anchor timeline</h2>
<ol class="timeline">
${step("done", "Stamped", html`${time(stamp.created_at)}: hashed and signed by the service.`)}
${step(sealed ? "done" : "waiting", "Confirmed", sealed ? "Sealed in a batch the service signed." : "Waiting for its batch to be sealed and signed.")}
${step(logged ? "done" : "waiting", "Logged", logged ? "Its batch is in a signed checkpoint of the transparency log." : "Waiting for a signed checkpoint of the transparency log to include its batch.")}
${anchoredStep(details)}
</ol>
${anchorTable(stamp)}
</section>`;
}

function step(state: StepState, name: string, text: SafeHtml | string): SafeHtml {
  return html`<li class="step step-${state}">
<span class="step-state">${stepWords[state]}</span>
<strong>${name}</strong> <span>${text}</span>
</li>`;
}

function anchoredStep(details: VerifyDetails): SafeHtml {
  const { anchors } = details;
  if (anchors.length === 0) {
    return step(
      "not-requested",
      "Anchored",
      "No anchors were requested: the signed batch and the log are its evidence.",
    );
  }
  if (stampStatus(details.sealed, anchors) === "anchored") {
    return step("done", "Anchored", "Every requested anchor has confirmed.");
  }
  const blocked = anchors.filter((a) => a.status === "failed" || a.status === "unavailable");
  if (blocked.length > 0) {
    return step(
      "blocked",
      "Anchored",
      `${plural(blocked.length, "requested anchor")} of ${anchors.length} failed or ${blocked.length === 1 ? "is" : "are"} unavailable here (see below).`,
    );
  }
  const pending = anchors.filter((a) => a.status !== "confirmed").length;
  return step(
    "waiting",
    "Anchored",
    `${plural(pending, "requested anchor")} of ${anchors.length} still pending.`,
  );
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
  if (anchor.status === "unavailable") return `Unavailable here: ${anchor.reason ?? "no reason given"}`;
  return "Pending";
}
