import { html } from "./html.js";
import { layout } from "./layout.js";

/**
 * The 429 page a browser gets instead of the JSON refusal (any request that prefers text/html):
 * says in words when to try again, which `Retry-After` also says to programs.
 */
export function tooManyRequestsPage(base: string, retryAfterSeconds: number): string {
  const wait = retryAfterSeconds === 1 ? "1 second" : `${retryAfterSeconds} seconds`;
  const main = html`<h1>Too many requests</h1>
<section class="verdict verdict-invalid" aria-labelledby="verdict-title">
<h2 id="verdict-title"><span class="verdict-symbol" aria-hidden="true">!</span> Please wait a moment</h2>
<p>This address has made more requests than this service answers in a short time.</p>
<p>Reload the page in ${wait}.</p>
</section>`;
  return layout({ base, title: "Too many requests", main });
}
