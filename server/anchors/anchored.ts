import type { AnchorType } from "../stamps/stamp-settings.js";
import type { AnchorRecord } from "./anchor-repository.js";

/**
 * Whether a confirmed stamp is anchored: it requested anchors and every one of them has confirmed.
 * One that failed, or that this deployment cannot provide, keeps the stamp `confirmed`, as does
 * requesting none (anchored by nothing is not anchored). The stored status follows the rule the
 * views apply on every read (`stampStatus` in core/trust.ts).
 */
export function isAnchored(requested: readonly AnchorType[], records: readonly AnchorRecord[]): boolean {
  const confirmed = (type: AnchorType) => records.some((r) => r.type === type && r.status === "confirmed");
  return requested.length > 0 && requested.every(confirmed);
}
