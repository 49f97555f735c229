import type { VerifyResult } from "../core/types.js";
import type { ProofBundle } from "../sdk/src/bundle/bundle.js";
import type { BundleCheck } from "../sdk/src/bundle/verify-bundle.js";
import { EXIT_FAILURE, EXIT_SIGNER_UNKNOWN } from "./exit-codes.js";

// How `stampd verify` words its verdicts and picks its exit code, offline and online.

/**
 * 0 only when everything holds and someone the user trusts vouches for the signing key; a
 * signature that holds under the key the stamp itself embeds proves nothing about who made it.
 */
export function exitCodeOf(valid: boolean, signerKnown: boolean): number {
  if (!valid) return EXIT_FAILURE;
  return signerKnown ? 0 : EXIT_SIGNER_UNKNOWN;
}

/** The verdict's first words. */
export function verdict(valid: boolean, signerKnown: boolean): string {
  if (!valid) return "INVALID";
  return signerKnown ? "VALID" : "signature valid, signer unknown";
}

const UNKNOWN_SIGNER_HINT =
  "  signer unknown: it verifies with the key the stamp embeds, which anyone can make; pin the service with --trust <key> or --key-ring <file> (or STAMPD_KEY_RING), or ask it with --online --url <address>";

/** The bundle's verdict, its pieces and score; `how` says where it was checked. */
export function bundleSummary(bundle: ProofBundle, check: BundleCheck, how: string): string {
  const known = check.signer !== "unknown";
  return [
    `stamp ${bundle.stamp.stamp_id}: ${verdict(check.valid, known)} (${how}, proof bundle saved ${bundle.saved_at})`,
    ...bundleLines(check),
    ...(check.valid && !known ? [UNKNOWN_SIGNER_HINT] : []),
  ].join("\n");
}

/** Each piece of a bundle check, then the trust score. */
export function bundleLines(check: BundleCheck): string[] {
  const { verification: v } = check;
  const width = Math.max(...check.pieces.map((p) => p.name.length));
  return [
    ...check.pieces.map((p) => `  ${p.name.padEnd(width)}  ${p.status.padEnd(10)} ${p.detail}`),
    `  ${"trust score".padEnd(width)}  ${v.trust_score} of ${v.trust_threshold} required (${v.trust_met ? "met" : "not met"})`,
  ];
}

/** A stamp document's verdict; `how` says where it was checked. */
export function summary(stamp: unknown, result: VerifyResult, keyPinned: boolean, how: string): string {
  const id = (stamp as { stamp_id?: unknown } | null)?.stamp_id;
  const lines = [
    `stamp ${typeof id === "string" ? id : "(unknown id)"}: ${verdict(result.is_valid, keyPinned)} (${how})`,
    ...resultLines(
      result,
      keyPinned,
      how === "offline" && { stampId: typeof id === "string" ? id : "<stamp id>" },
    ),
  ];
  if (result.is_valid && !keyPinned) lines.push(UNKNOWN_SIGNER_HINT);
  return lines.join("\n");
}

/** The checks of a VerifyResponse, one a line, then its failures. */
export function resultLines(
  result: VerifyResult,
  keyPinned: boolean,
  offline: false | { stampId: string },
): string[] {
  const { details } = result;
  const anchors = details.anchors.map((a) => `${a.type} ${a.status}`).join(", ") || "none requested";
  const lines = [
    `  format             ${details.format}`,
    `  service signature  ${details.service_signature}${keyPinned ? "" : " (key not pinned; --trust <key> requires a known service key)"}`,
    `  author signature   ${details.author_signature}`,
    `  content hash       ${details.content_hash}`,
    `  anchors            ${anchors}${offline && details.anchors.length ? " (offline: live states not checked; a proof bundle holds them)" : ""}`,
    `  trust score        ${result.trust_score} of ${result.trust_threshold} required ${trustWords(result, offline)}`,
  ];
  if (details.failures.length) lines.push("failures:", ...details.failures.map((f) => `  - ${f}`));
  return lines;
}

/**
 * "(met)", or why not. Offline, a stamp document alone proves its signatures only: its batch, log
 * and anchors are evidence it does not hold, so a low score says what could not be checked, not
 * that the stamp falls short (the server may well count 5 or more for it).
 */
function trustWords(result: VerifyResult, offline: false | { stampId: string }): string {
  if (result.trust_met) return "(met)";
  if (!offline || !result.is_valid) return "(not met)";
  return `(not checked offline: a stamp document holds no proof of its batch, log or anchors; verify its proof bundle instead: stampd get ${offline.stampId} --out <name>.stampd.json)`;
}
