import type { components } from "../../gen/openapi/types.js";
import { algorithmName, readableTime } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import { statusText } from "./verdict.js";

type StampResponse = components["schemas"]["StampResponse"];

const item = (term: string, value: SafeHtml | string) => html`<div><dt>${term}</dt><dd>${value}</dd></div>`;
/** A long value shown whole (broken at any character) with a Copy button the page script adds. */
const code = (text: string, what: string) => html`<code class="value" data-copy="${what}">${text}</code>`;

/** What the stamp records: the document's hash, who signed, when, and what it was stamped with. */
export function stampDetails(stamp: StampResponse): SafeHtml {
  const doc = stamp.stamp_json;
  const size = doc.document.size_bytes;
  return html`<section aria-labelledby="details-title">
<h2 id="details-title">What was stamped</h2>
<dl class="details">
${item("Stamp id", code(stamp.stamp_id, "stamp id"))}
${item("Status", statusText(stamp.status, stamp.anchors))}
${item("Created", html`<time datetime="${stamp.created_at}">${readableTime(stamp.created_at)}</time>`)}
${item(`Document hash (${algorithmName(stamp.hash_algorithm)})`, code(stamp.document_hash, "document hash"))}
${item("Hash algorithm", algorithmName(stamp.hash_algorithm))}
${item("Document size", size === null ? "Not recorded (stamped from a hash)" : `${size.toLocaleString("en")} bytes`)}
${item("Document version", doc.document.version)}
${item("Signer key", stamp.author_public_key ? code(stamp.author_public_key, "signer key") : "None: not signed by an author identity")}
${item("Service key", code(doc.service_public_key, "service key"))}
${item("Preset", doc.preset ?? "None")}
${item("Fingerprint", stamp.has_fingerprint ? "Stored" : "None")}
${doc.description ? item("Description", html`<span class="text">${doc.description}</span>`) : ""}
${doc.metadata ? item("Metadata", metadataList(doc.metadata)) : ""}
</dl>
</section>`;
}

function metadataList(metadata: Record<string, string>): SafeHtml {
  return html`<dl class="metadata">${Object.entries(metadata).map(
    ([key, value]) => html`<div><dt>${key}</dt><dd>${value}</dd></div>`,
  )}</dl>`;
}
