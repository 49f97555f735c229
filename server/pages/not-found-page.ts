import { html } from "./html.js";
import { layout } from "./layout.js";

/** The 404 page of GET /verify/{stamp_id}: any id that is not a stored stamp, malformed ones too. */
export function notFoundPage(base: string, stampId: string): string {
  const main = html`<h1>Stamp not found</h1>
<section class="verdict verdict-invalid" aria-labelledby="verdict-title">
<h2 id="verdict-title"><span class="verdict-symbol" aria-hidden="true">?</span> No such stamp</h2>
<p>No stamp with the id <code class="value">${stampId}</code> is recorded by this service.</p>
<p>Check the address for typing errors. A stamp made by another deployment can only be verified there, or offline with its stamp document.</p>
</section>`;
  return layout({ base, title: "Stamp not found", main });
}
