import type { RingKey } from "../../core/key-ring.js";
import { evidenceOf, TRUST_RULE, trustItems } from "../../core/trust.js";
import type { VerifyResult } from "../../core/types.js";
import type { components } from "../../gen/openapi/types.js";
import { anchorTimeline } from "./anchor-timeline.js";
import { algorithmName } from "./format.js";
import { html, type SafeHtml } from "./html.js";
import { layout } from "./layout.js";
import { linkTo } from "./links.js";
import { stampDetails } from "./stamp-details.js";
import { otsUrl, sigstoreUrl } from "./token-link.js";
import { verdictOf } from "./verdict.js";

type StampResponse = components["schemas"]["StampResponse"];

export interface VerifyPageInput {
  base: string;
  stamp: StampResponse;
  /**
   * The server's verification of the stored stamp (signatures, anchors, trust), from the same
   * reading of its evidence as `stamp` (StampService.inspect).
   */
  result: VerifyResult;
  /** Where the RFC 3161 token of this stamp can be downloaded, when the service offers it. */
  tokenUrl?: string;
  /** The key ring's entry of the key that signed the stamp; absent when the ring has none. */
  signingKey?: RingKey;
}

/** GET /verify/{stamp_id}: the public page a third party reads to judge a stamp. */
export function verifyPage(input: VerifyPageInput): string {
  const { stamp } = input;
  const main = html`<h1>Stamp <code class="value">${stamp.stamp_id}</code></h1>
${verdictSection(input.result, stamp.stamp_json, input)}
${stampDetails(stamp)}
${trustSection(input.result)}
${anchorTimeline(stamp, input.result.details)}
${fileCheck(stamp)}
${downloads(input)}`;
  return layout({ base: input.base, title: `Stamp ${stamp.stamp_id}`, main, script: "verify" });
}

function verdictSection(
  result: VerifyResult,
  document: StampResponse["stamp_json"],
  { base, signingKey }: VerifyPageInput,
): SafeHtml {
  const verdict = verdictOf(result);
  const { details } = result;
  const batch = document.signatures.service_batch;
  return html`<section class="verdict verdict-${verdict.kind}" aria-labelledby="verdict-title">
<h2 id="verdict-title"><span class="verdict-symbol" aria-hidden="true">${verdict.symbol}</span> ${verdict.headline}</h2>
<p>${verdict.summary}</p>
<ul class="checks">
<li>Format: ${details.format}</li>
<li>Service signature: ${details.service_signature.replace("_", " ")}${batch ? ` (one signature for a batch of ${batch.tree_size} stamps, over their Merkle root)` : ""}</li>
<li>Signed by: ${signedBy(document.service_public_key, signingKey, base)}</li>
<li>Author signature: ${details.author_signature}</li>
</ul>
${details.failures.length ? html`<ul class="failures">${details.failures.map((f) => html`<li>${f}</li>`)}</ul>` : ""}
</section>`;
}

/** Which of the deployment's keys signed, and for which period the key ring (`GET /keys`) vouches for it. */
function signedBy(publicKey: string, key: RingKey | undefined, base: string): SafeHtml {
  if (!key) return html`<code class="value">${publicKey}</code>, which is not in this deployment's key ring`;
  const until = key.not_after ? ` until ${key.not_after}` : " (the active key)";
  const revoked = key.revoked_at ? `, revoked at ${key.revoked_at}` : "";
  // The deployment's first key has no start in the ring (its period opens at the epoch, so stamps
  // from before the ring existed verify): "from 1970" would be a date nobody signed on.
  const from = Date.parse(key.not_before) === 0 ? "since the deployment began" : `from ${key.not_before}`;
  return html`service key <code class="value">${key.key_id}</code> (<code class="value">${publicKey}</code>), ${key.state}: signing ${from}${until}${revoked}; see the <a href="${linkTo(base, "keys")}">key ring</a>`;
}

/** The score, the evidence it counted line by line, and its rule, all from the one trust function. */
function trustSection(result: VerifyResult): SafeHtml {
  const met = result.trust_met ? "met" : "not met";
  return html`<section aria-labelledby="trust-title">
<h2 id="trust-title">Trust score</h2>
<p class="trust trust-${result.trust_met ? "met" : "unmet"}"><strong>${result.trust_score}</strong> of ${result.trust_threshold} required: ${met}.${result.is_valid ? "" : " The stamp is not valid: do not rely on its score."}</p>
${trustMeter(result.trust_score, result.trust_threshold)}
<ul class="trust-items">
${trustItems(evidenceOf(result)).map(
  (item) =>
    html`<li class="${item.earned ? "earned" : "not-earned"}">${item.evidence}: ${item.earned ? `+${item.points}` : `0 of ${item.points}`}</li>`,
)}
</ul>
<p class="note">${TRUST_RULE}</p>
</section>`;
}

/**
 * A meter whose boundary sits just below the threshold, so browsers draw a met score in their
 * "optimum" colour and a score below it in their "poor" one.
 */
function trustMeter(score: number, threshold: number): SafeHtml {
  const max = Math.max(score, threshold, 1);
  const boundary = Math.max(threshold - 0.5, 0);
  return html`<meter min="0" max="${max}" low="${boundary}" high="${boundary}" optimum="${max}" value="${score}" aria-label="Trust score">${score} of ${threshold}</meter>`;
}

function fileCheck(stamp: StampResponse): SafeHtml {
  const algorithm = algorithmName(stamp.hash_algorithm);
  return html`<section class="file-check" id="file-check" aria-labelledby="check-title" data-algorithm="${stamp.hash_algorithm}" data-hash="${stamp.document_hash}">
<h2 id="check-title">Check a file against this stamp</h2>
<p>Your file is hashed with ${algorithm} in this browser; it is never uploaded.</p>
<div class="dropzone" id="dropzone">
<p>Drop a file here, or</p>
<label class="button" for="file-input">Choose a file</label>
<input class="visually-hidden" type="file" id="file-input">
</div>
<p class="file-result" id="file-result" role="status" aria-live="polite"></p>
<noscript><p>Checking a file here needs JavaScript. Without it, compare the hash above with the output of a ${algorithm} tool.</p></noscript>
</section>`;
}

function downloads({ base, stamp, tokenUrl }: VerifyPageInput): SafeHtml {
  const file = `${stamp.stamp_id}.json`;
  const bundle = `${stamp.stamp_id}.stampd.json`;
  return html`<section aria-labelledby="downloads-title">
<h2 id="downloads-title">Download and verify offline</h2>
<ul class="downloads">
<li id="proof-bundle" data-base="${base}" data-stamp-id="${stamp.stamp_id}" data-script="${linkTo(base, "pages", "assets", "proof-bundle.js")}"><button type="button" class="button" id="proof-bundle-button">Proof bundle</button> (<code>${bundle}</code>): the stamp with the evidence its trust score counts (batch proof, log checkpoint and inclusion, time-stamp token), gathered now, so <code>stampd verify</code> checks all of it without this service. <span id="proof-bundle-status" role="status" aria-live="polite"></span><noscript> Without JavaScript: <code>stampd get ${stamp.stamp_id} --out ${bundle}</code>.</noscript></li>
<li><a href="${linkTo(base, "stamps", stamp.stamp_id)}" download="${file}" type="application/json">Stamp record (JSON)</a>: holds <code>stamp_json</code>, the signed stamp document (its signatures only: offline, its score is not checked).</li>
${tokenUrl ? tokenItem(base, stamp.stamp_id, tokenUrl) : ""}
${otsItem(base, stamp)}
${sigstoreItem(base, stamp)}
<li><a href="${linkTo(base, "stamps")}?hash=${encodeURIComponent(`${stamp.hash_algorithm}:${stamp.document_hash}`)}" type="application/json">Every stamp of this document</a> (JSON, newest first): this one and any other stamp of the same hash, as <code>stampd search --hash</code> lists them.</li>
</ul>
<p>Without this service: <code class="value" data-copy="command">stampd verify ${bundle} your-document --trust ${stamp.stamp_json.service_public_key}</code></p>
<p>Address of this page: <a class="address" href="${stamp.verify_url}">${stamp.verify_url}</a></p>
</section>`;
}

function otsItem(base: string, stamp: StampResponse): SafeHtml | string {
  const url = otsUrl(base, stamp);
  if (!url) return "";
  const file = `${stamp.stamp_id}.ots`;
  return html`<li><a href="${url}" download="${file}" type="application/vnd.opentimestamps.ots">OpenTimestamps proof</a> of the bitcoin anchor, from your document's SHA-256 to the calendars' attestations: <code>ots verify -f your-document ${file}</code> (the Bitcoin block it names is checked with your Bitcoin node)</li>`;
}

function sigstoreItem(base: string, stamp: StampResponse): SafeHtml | string {
  const url = sigstoreUrl(base, stamp);
  if (!url) return "";
  const file = `${stamp.stamp_id}.sigstore.json`;
  return html`<li><a href="${url}" download="${file}" type="application/vnd.dev.sigstore.bundle.v0.3+json">Sigstore bundle</a> of the stamp, for Sigstore's clients (sigstore-js, cosign) with <a href="${linkTo(base, "sigstore", "trusted_root.json")}">this service's trusted root</a> and <a href="${linkTo(base, "keys")}">its keys</a></li>`;
}

function tokenItem(base: string, stampId: string, tokenUrl: string): SafeHtml {
  return html`<li><a href="${tokenUrl}" download="${stampId}.tsr">RFC 3161 time-stamp token</a>, issued by this service's time-stamp authority (<a href="${linkTo(base, "tsa", "ca.pem")}">its certificate</a>): <code>openssl ts -verify -data your-document -in ${stampId}.tsr -CAfile ca.pem</code></li>`;
}
