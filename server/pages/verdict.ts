import { stampStatus } from "../../core/trust.js";
import type { AnchorState, StampStatus, VerifyResult } from "../../core/types.js";
import { anchorName, plural } from "./format.js";

export type VerdictKind = "valid" | "pending" | "warning" | "invalid";

/** What the page says first, in words (the colour only repeats it). */
export interface Verdict {
  kind: VerdictKind;
  /** A mark shown beside the headline; screen readers skip it, the headline says the same. */
  symbol: string;
  headline: string;
  summary: string;
}

const names = (anchors: readonly AnchorState[]) => anchors.map((a) => anchorName(a.type)).join(", ");
const withStatus = (anchors: readonly AnchorState[], status: AnchorState["status"]) =>
  anchors.filter((a) => a.status === status);

/**
 * The verdict on a stored stamp, from the server's verification of it: the same result the
 * status line, the timeline and the score on the page are drawn from, so they cannot disagree.
 * In this order: a broken signature or document outweighs everything; then a failed anchor; then
 * an anchor this deployment cannot provide; then evidence still to come (the batch, the log, a
 * pending anchor); then a trust score below the stamp's threshold; else valid. Every summary but
 * the first ends with the score, so the verdict never reads better than the score.
 */
export function verdictOf(result: VerifyResult): Verdict {
  const { anchors } = result.details;
  const failed = withStatus(anchors, "failed");
  const unavailable = withStatus(anchors, "unavailable");
  const waiting = waitingFor(result);
  const score = `Trust score ${result.trust_score} of ${result.trust_threshold} required: ${result.trust_met ? "met" : "not met"}.`;
  const still = waiting.length > 0 ? ` Still to come: ${waiting.join("; ")}.` : "";
  if (!result.is_valid) {
    return {
      kind: "invalid",
      symbol: "✗",
      headline: "Not valid",
      summary: "This stamp failed verification: its record does not match its signatures. Do not rely on it.",
    };
  }
  if (failed.length > 0) {
    return {
      kind: "warning",
      symbol: "!",
      headline: "Signed, but an anchor failed",
      summary: `The signatures are valid, but ${plural(failed.length, "anchor")} of ${anchors.length} failed (${names(failed)}) and will not count.${still} ${score}`,
    };
  }
  if (unavailable.length > 0) {
    return {
      kind: "warning",
      symbol: "!",
      headline: `Valid, but ${plural(unavailable.length, "requested anchor")} ${unavailable.length === 1 ? "is" : "are"} unavailable here`,
      summary: `The signatures are valid, but this deployment cannot provide ${names(unavailable)}, so ${unavailable.length === 1 ? "it adds" : "they add"} nothing to the trust score.${still} ${score}`,
    };
  }
  if (waiting.length > 0) {
    return {
      kind: "pending",
      symbol: "…",
      headline: "Valid, evidence pending",
      summary: `The signatures are valid.${still} ${score}`,
    };
  }
  if (!result.trust_met) {
    return {
      kind: "warning",
      symbol: "!",
      headline: "Valid, below its trust threshold",
      summary: `The signatures are valid and all the evidence is in, but the trust score ${result.trust_score} is below the ${result.trust_threshold} this stamp requires.`,
    };
  }
  return {
    kind: "valid",
    symbol: "✓",
    headline: "Valid",
    summary: `The signatures are valid, the stamp is sealed in a signed batch and in a signed log checkpoint, ${
      anchors.length > 0 ? "and every requested anchor has confirmed" : "and no anchors were requested"
    }. ${score}`,
  };
}

/** The evidence a valid stamp is still waiting for, in words; empty when nothing more can come. */
function waitingFor(result: VerifyResult): string[] {
  const { details } = result;
  const pending = withStatus(details.anchors, "pending");
  const waiting: string[] = [];
  if (!details.sealed) waiting.push("sealing in a signed batch");
  if (!details.logged) waiting.push("inclusion in a signed log checkpoint");
  if (pending.length > 0) waiting.push(`${plural(pending.length, "pending anchor")} (${names(pending)})`);
  return waiting;
}

/** The status line: the stamp's status in words, with why it is not further along. */
export function statusText(status: StampStatus, anchors: readonly AnchorState[]): string {
  if (status === "pending") return "Pending (not yet in a signed batch)";
  if (status === "anchored") return "Anchored (every requested anchor has confirmed)";
  if (anchors.length === 0) return "Confirmed (in a signed batch; no anchors were requested)";
  const blocked = anchors.filter((a) => a.status === "failed" || a.status === "unavailable");
  if (blocked.length > 0) {
    return `Confirmed (in a signed batch; not anchored: ${names(blocked)} failed or unavailable here)`;
  }
  return "Confirmed (in a signed batch; anchors pending)";
}

/** The status a verification result implies: the rule the service applies to its own view. */
export const statusOf = (result: VerifyResult): StampStatus =>
  stampStatus(result.details.sealed, result.details.anchors);
