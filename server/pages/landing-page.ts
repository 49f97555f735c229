import { html } from "./html.js";
import { layout } from "./layout.js";
import { linkTo } from "./links.js";

/**
 * GET / for a browser (a request that prefers text/html; every other client gets the JSON root
 * object): what this service is and where to go from here.
 */
export function landingPage(base: string): string {
  const entry = (path: string, name: string, text: string) =>
    html`<li><a href="${linkTo(base, path)}">${name}</a><p>${text}</p></li>`;
  const main = html`<h1>stampd</h1>
<p class="intro">Tamper-evident stamps of documents: this service records a document's hash and the time, signs them, seals them in signed batches anchored in an append-only log, and lets anyone verify a stamp later, here or offline. The document itself is never stored.</p>
<section aria-labelledby="start-title">
<h2 id="start-title">Where to go</h2>
<ul class="entry-points">
${entry("explorer", "Explorer", "Every vault of this service and the network statistics, live.")}
${entry("dashboard", "Dashboard", "Stamps, vaults and fees as they happen, and the log's latest checkpoint.")}
${entry("docs", "API reference", "REST operations to try in the browser; also as ReDoc and as the OpenAPI description.")}
</ul>
</section>
<section aria-labelledby="verify-title">
<h2 id="verify-title">Verify a stamp</h2>
<p>Every stamp has a public page at <code class="value">${linkTo(base, "verify")}/&lt;stamp id&gt;</code>: its verdict, what was stamped, its anchors, and a check of your copy of the document, hashed in your browser and never uploaded.</p>
</section>`;
  return layout({ base, title: "Tamper-evident document stamps", main });
}
