import type { VerifyResult } from "../../sdk/src/verify/types.js";
import { plural } from "./format.js";

export type VerdictKind = "valid" | "pending" | "warning" | "invalid";

/** What the page says first, in words (the colour only repeats it). */
export interface Verdict {
  kind: VerdictKind;
  /** A mark shown beside the headline; screen readers skip it, the headline says the same. */
  symbol: string;
  headline: string;
  summary: string;
}

/**
 * The verdict on a stored stamp, from the server's verification of it. A broken signature or
 * document outweighs everything; then a failed anchor; then anchors still pending; then a trust
 * score below the stamp's own threshold.
 */
export function verdictOf(result: VerifyResult): Verdict {
  const anchors = result.details.anchors;
  const failed = anchors.filter((a) => a.status === "failed").length;
  const pending = anchors.filter((a) => a.status === "pending").length;
  if (!result.is_valid) {
    return {
      kind: "invalid",
      symbol: "✗",
      headline: "Not valid",
      summary: "This stamp failed verification: its record does not match its signatures. Do not rely on it.",
    };
  }
  if (failed > 0) {
    return {
      kind: "warning",
      symbol: "!",
      headline: "Signed, but an anchor failed",
      summary: `The signatures are valid, but ${plural(failed, "anchor")} of ${anchors.length} could not be confirmed.`,
    };
  }
  if (pending > 0) {
    return {
      kind: "pending",
      symbol: "…",
      headline: "Valid, anchoring pending",
      summary: `The signatures are valid. ${plural(pending, "anchor")} of ${anchors.length} ${pending === 1 ? "is" : "are"} still pending.`,
    };
  }
  if (!result.trust_met) {
    return {
      kind: "warning",
      symbol: "!",
      headline: "Valid, below its trust threshold",
      summary: `The signatures are valid, but the trust score ${result.trust_score} is below the ${result.trust_threshold} this stamp requires.`,
    };
  }
  return {
    kind: "valid",
    symbol: "✓",
    headline: "Valid",
    summary:
      anchors.length > 0
        ? "The signatures are valid and every requested anchor has confirmed."
        : "The signatures are valid. No anchors were requested for this stamp.",
  };
}
