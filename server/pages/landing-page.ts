import { html, type SafeHtml } from "./html.js";
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
${fileStamping(base)}
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
  return layout({ base, title: "Tamper-evident document stamps", main, script: "landing" });
}

/**
 * Stamping and checking a file without a terminal (browser/landing.ts): the file is hashed with
 * SHA-256 in the browser and only its hash is sent, to `POST /stamps` as JSON or to
 * `GET /stamps?hash=`. An API key typed here stays in the page: it is sent as a header, never
 * kept.
 */
function fileStamping(base: string): SafeHtml {
  return html`<section class="file-stamp" id="file-stamp" aria-labelledby="file-title" data-stamps-url="${linkTo(base, "stamps")}">
<h2 id="file-title">Stamp or find a file</h2>
<p>Your file is hashed with SHA-256 in this browser; it is never uploaded. Only its hash is sent, and only when you ask.</p>
<div class="dropzone" id="dropzone">
<p>Drop a file here, or</p>
<label class="button" for="file-input">Choose a file</label>
<input class="visually-hidden" type="file" id="file-input">
</div>
<p class="hash-progress" id="hash-progress-row" hidden><label for="hash-progress">Hashing</label> <progress id="hash-progress" max="1" value="0"></progress></p>
<p class="file-result" id="file-status" role="status" aria-live="polite"></p>
<p class="file-hash" id="file-hash-row" hidden>SHA-256: <code class="value" id="file-hash" data-copy="file hash"></code></p>
<div class="file-actions">
<p><label for="api-key">API key (optional)</label> <input type="password" id="api-key" autocomplete="off" spellcheck="false" aria-describedby="api-key-note"><br><span class="note" id="api-key-note">Without a key the anonymous rate limit applies. The key stays in this page: it is sent with your request, never stored.</span></p>
<p class="buttons"><button type="button" class="button" id="stamp-button" disabled>Stamp it</button> <button type="button" class="button" id="find-button" disabled>Find its stamps</button></p>
</div>
<div class="file-answer" id="file-answer" role="status" aria-live="polite"></div>
<noscript><p>Hashing a file here needs JavaScript. Without it, use the API: <code>POST /stamps</code> with <code>{"hash": "sha256:&lt;hex&gt;"}</code>, or <code>stampd stamp</code>.</p></noscript>
</section>`;
}
